import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * PostgreSQL parses and plans an unnamed statement anew at every execution; node-postgres
 * prepares a named one on each connection the first time it runs there, and later runs skip
 * both steps. Registered here are statements that run often and whose planning is a large part
 * of their cost: naming the append of a group of page views (analytics.repository.ts) took its
 * backend's CPU from about 210 to 140 µs a group of ten views.
 *
 * Only fixed texts are registered, never what a query builder makes: a connection keeps every
 * statement it prepared until it closes, and Kysely writes a new text for every length of an
 * IN list.
 */
const names = new Map<string, string>();

/** Registers `text` to be prepared on PostgreSQL, and returns it. */
export function preparedOnPostgres(text: string): string {
  if (!names.has(text)) names.set(text, `tagsvc_${names.size + 1}`);
  return text;
}

/**
 * The pool Kysely takes, over a node-postgres pool: its clients run the registered texts as
 * named statements, the rest as they are.
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
    function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
    function query(statement: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>): unknown {
      // Kysely hands over a cursor only for stream(), with a cursor class configured: none is.
      if (typeof statement !== 'string') throw new Error('No cursor class is configured for PostgreSQL');
      const name = names.get(statement);
      const values = parameters as unknown[];
      return client.query(name ? { name, text: statement, values } : { text: statement, values });
    }
    return { query, release: () => client.release() };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let kept = wrapped.get(client);
      if (!kept) wrapped.set(client, (kept = wrap(client)));
      return kept;
    },
    end: () => pool.end(),
  };
}
