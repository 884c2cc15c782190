import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appendToInbox } from '../../src/features/analytics/ingestion.repository.js';
import { useApp } from '../helpers/harness.js';

/**
 * perf/pg-prepared-statements.ts: the statements registered to be prepared run as named
 * statements, prepared once on each connection; what a query builder makes runs unnamed.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('prepared statements on PostgreSQL', () => {
  const t = useApp();

  it("the inbox append is prepared once on its connection; the query builder's queries are not", async () => {
    // One transaction: every statement on one connection, whose prepared statements it then lists.
    const prepared = await t.database.db.transaction().execute(async (trx) => {
      await appendToInbox(trx, '[]', 0);
      await appendToInbox(trx, '[]', 0);
      await trx.selectFrom('tags').select('id').where('id', '=', 'tag_none').execute();
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(trx);
      return rows.map((row) => row.statement);
    });
    expect(prepared.filter((text) => text.startsWith('INSERT INTO view_inbox'))).toHaveLength(1);
    expect(prepared.some((text) => text.includes('"tags"'))).toBe(false);
  });
});

/**
 * db/database.ts: the service's connections run with JIT compilation off, which otherwise
 * compiles a query for longer than it runs once its estimated cost passes jit_above_cost.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('JIT compilation on PostgreSQL', () => {
  const t = useApp();

  it('is off on every connection of the pool, with the schema still the search path', async () => {
    const settings = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.database.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{
            jit: string;
            path: string;
          }>`SELECT current_setting('jit') AS jit, current_setting('search_path') AS path`.execute(trx);
          return rows[0]!;
        }),
      ),
    );
    expect(settings.every(({ jit, path }) => jit === 'off' && path === `"${t.env.DATABASE_SCHEMA}"`)).toBe(true);
  });
});
