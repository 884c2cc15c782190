import { setTimeout as sleep } from 'node:timers/promises';
import {
  SqliteDialect,
  SqliteDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
} from 'kysely';
import { DependencyUnavailable, failureReason, InsufficientStorage, isDiskFull } from '../errors.js';

/** The longest pause between two tries: short, so a statement goes soon after the lock is free. */
const MAX_PAUSE_MS = 50;

/** How statements wait for another connection's lock. */
export interface LockWaits {
  /** Whether the connection has a transaction open (better-sqlite3's `inTransaction`). */
  inTransaction(): boolean;
  /** How long a statement waits for the lock before it fails. */
  lockWaitMs: number;
}

/**
 * A SQLite dialect whose statements wait for another connection's lock without holding the
 * thread. SQLite's own wait (busy_timeout) sleeps on the calling thread: on the server's
 * connection, the thread that answers every request, for as long as the other connection
 * holds the lock (the checkpoint thread restarting the log, during a long fsync on a busy disk;
 * another process's transaction). So that connection has no
 * busy timeout: SQLite then fails a statement that finds the database locked at once, with
 * SQLITE_BUSY and nothing done, and this runs it again after a timer, for up to `lockWaitMs`
 * (DEPENDENCY_TIMEOUT); then it fails as DependencyUnavailable (503).
 *
 * Only statements outside a transaction are run again: transactions begin IMMEDIATE (the
 * write lock first, with the BEGIN itself retried here), so inside one nothing waits for it.
 * The same connection turns a full disk into a 507 (LockWaitingConnection below).
 */
export class LockWaitingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly waits: LockWaits,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new LockWaitingDriver(this.config, this.waits);
  }
}

/**
 * Kysely's SQLite driver, handing out its one connection wrapped: the driver runs BEGIN, COMMIT
 * and savepoints on the connection it is given, so they wait as every statement does.
 */
class LockWaitingDriver extends SqliteDriver {
  #waiting: LockWaitingConnection | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly waits: LockWaits,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.#waiting ??= new LockWaitingConnection(connection, this.waits);
    return this.#waiting;
  }
}

/**
 * The connection every statement runs on. Besides waiting for locks, it keeps a full disk from
 * passing for a bug: SQLITE_FULL becomes InsufficientStorage (507, one log line). SQLite rolls
 * the whole transaction back by itself when a statement fails for want of space, so Kysely's
 * ROLLBACK after it would fail ("no transaction is active") and hide the real error: a ROLLBACK
 * with no transaction open is skipped.
 */
class LockWaitingConnection implements DatabaseConnection {
  constructor(
    private readonly connection: DatabaseConnection,
    private readonly waits: LockWaits,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Kysely's `rollback` and `rollback to "savepoint"`.
    if (query.sql.startsWith('rollback') && !this.waits.inTransaction()) return { rows: [] };
    // The deadline is set at the first refusal: a statement that runs at once reads no clock.
    let deadline: number | undefined;
    for (let tries = 0; ; tries++) {
      try {
        return await this.connection.executeQuery<R>(query);
      } catch (error) {
        if (isDiskFull(error)) throw new InsufficientStorage('database', failureReason(error));
        if (!isBusy(error) || this.waits.inTransaction()) throw error;
        deadline ??= performance.now() + this.waits.lockWaitMs;
        // Another process (a command, a stuck worker) has held the write lock all along: the
        // database is out of reach for writes, as a frozen server is.
        if (performance.now() >= deadline) {
          throw new DependencyUnavailable('database', `${failureReason(error)}: the write lock was held for ${this.waits.lockWaitMs} ms`);
        }
        await sleep(Math.min(2 ** tries, MAX_PAUSE_MS));
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    // Streams only read, and in WAL mode reading never waits for a lock.
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

/** SQLITE_BUSY and its extended codes: another connection holds a lock this statement needs. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
