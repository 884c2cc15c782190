import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { DependencyUnavailable, failureReason, InsufficientStorage, isDiskFull } from '../errors.js';
import { preparedName } from '../perf/pg-prepared-statements.js';

/** What the pool reports and how long a query may go unanswered. */
export interface PoolGuard {
  /** A query unanswered this long is given up and its connection closed; 0: no limit (migrations). */
  queryTimeoutMs: number;
  /** A connection lost while nobody was using it (a restart, a failover, pg_terminate_backend). */
  onConnectionLost(reason: string): void;
}

/**
 * SQLSTATE codes that mean the connection, not the statement, failed: class 08 (connection
 * exception), the server shutting down or not yet up (57P01–57P03), an idle session ended
 * (57P05), and too many connections (53300).
 */
const CONNECTION_FAILURES = /^(08...|57P0[1235]|53300)$/;

/**
 * The pool Kysely takes, over a node-postgres pool, made to survive the database:
 *
 * - a connection lost while idle or between two queries of a transaction is reported, never
 *   thrown at the process (node-postgres emits 'error' on the client, and an 'error' event
 *   without a listener ends the process);
 * - a failure of the connection, not of the statement, becomes DependencyUnavailable (503), and
 *   the connection is dropped from the pool instead of being handed to the next request; the
 *   pool opens new connections as they are needed, so the process is healthy again as soon as
 *   the server answers;
 * - a query unanswered for `guard.queryTimeoutMs` (a frozen server, a cut network) is given up:
 *   its connection is closed at once, so a transaction's ROLLBACK fails at once too instead of
 *   queueing behind it, and the request is answered 503 within the bound;
 * - the database's disk being full (53100) becomes InsufficientStorage (507);
 * - statements registered with preparedOnPostgres run as named statements (prepared once on
 *   each connection).
 */
export function guardedPool(pool: pg.Pool, guard: PoolGuard): PostgresPool {
  // An idle client's error reaches the pool, which drops the client and re-emits it here.
  pool.on('error', (error) => guard.onConnectionLost(failureReason(error)));
  // Anywhere else (checked out between two queries, handed over while its connection drops) an
  // error has nowhere to go, and an 'error' event without a listener ends the process: every
  // client gets one from birth. The next query on it fails "not queryable" and becomes a 503.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw pgFault(error);
      }
      let kept = wrapped.get(client);
      if (!kept) wrapped.set(client, (kept = guardedClient(client, guard)));
      return kept;
    },
    end: () => pool.end(),
  };
}

/**
 * A node-postgres failure as the service answers it: the database's full disk (53100) is
 * InsufficientStorage (507); what is not the server's answer to the statement (no SQLSTATE:
 * ECONNREFUSED, ECONNRESET, "Connection terminated", "not queryable") or says the connection
 * is over is DependencyUnavailable (503); a statement's own error stays as it is.
 */
export function pgFault(error: unknown): unknown {
  if (isDiskFull(error)) return new InsufficientStorage('database', failureReason(error));
  if (!(error instanceof pg.DatabaseError) || CONNECTION_FAILURES.test(error.code ?? '')) {
    return new DependencyUnavailable('database', failureReason(error));
  }
  return error;
}

function guardedClient(client: pg.PoolClient, guard: PoolGuard): PostgresPoolClient {
  let broken = false;

  /** The failure as the service answers it; a failed connection is not lent again. */
  const faultOf = (error: unknown): unknown => {
    const fault = pgFault(error);
    if (fault instanceof DependencyUnavailable) broken = true;
    return fault;
  };

  function run(statement: string, values: unknown[]): Promise<pg.QueryResult> {
    const name = preparedName(statement);
    const answer = client.query(name ? { name, text: statement, values } : { text: statement, values });
    const limitMs = guard.queryTimeoutMs;
    if (limitMs === 0) return answer.catch((error: unknown) => Promise.reject(faultOf(error)));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        broken = true;
        // end() with a query in flight destroys the socket: every queued query fails at once.
        void client.end().catch(() => undefined);
        reject(new DependencyUnavailable('database', `no answer within ${limitMs} ms`));
      }, limitMs);
      answer.then(
        (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(faultOf(error));
        },
      );
    });
  }

  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query(statement: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>): unknown {
    // Kysely hands over a cursor only for stream(), with a cursor class configured: none is.
    if (typeof statement !== 'string') throw new Error('No cursor class is configured for PostgreSQL');
    return run(statement, parameters as unknown[]);
  }
  // A broken connection goes back with its error, so the pool closes it rather than lend it again.
  const release = () => (broken ? client.release(true) : client.release());
  return { query, release };
}
