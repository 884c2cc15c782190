import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, sql, type MigrationProvider } from 'kysely';
import { isPostgres } from './dialect.js';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Config } from '../config.js';
import { migrations } from './migrations/index.js';
import { guardedPool, pgFault, type PoolGuard } from './pg-pool.js';
import { SchemaBoundPostgresDialect } from './pg-schema-dialect.js';
import { checkpointInBackground } from './sqlite-checkpointer.js';
import { LockWaitingSqliteDialect } from './sqlite-lock-wait.js';
import { counterFeed, registerChangeFeed } from '../perf/exact-cache.js';
import { PgChangeFeed } from '../perf/pg-change-feed.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

export { isPostgres };

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** The PostgreSQL schema in use, when not the default. */
  schema?: string;
  /**
   * From now on, a query unanswered for `ms` fails (503) and its connection is closed: called
   * once migrations have run, which may take longer. PostgreSQL only: SQLite answers on this
   * thread or not at all.
   */
  limitQueryTime(ms: number): void;
  close(): Promise<void>;
}

export const SQLITE_FILE = 'tagsvc.sqlite';

/** The longest a cache-feed fence waits for its round trip (see PgChangeFeed). */
const FENCE_LIMIT_MS = 1000;

/** How a process opens its database. */
export interface OpenOptions {
  /**
   * SQLite: checkpoint the log on a thread of its own (sqlite-checkpointer.ts), as processes that
   * answer requests must; the thread's failure is reported here. Without it the connection
   * checkpoints itself, SQLite's default, which suits short commands.
   */
  checkpointThread?: { onFailure(error: Error): void };
  /** PostgreSQL: a pooled connection was lost while idle (the pool opens another when needed). */
  onConnectionLost?(reason: string): void;
}

/** `lockWaitMs`: how long a write waits for another process's lock (sqlite-lock-wait.ts). */
function openSqlite(dataDir: string, lockWaitMs: number, options: OpenOptions): DatabaseHandle {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, SQLITE_FILE);
  const sqlite = new SQLite(file);
  // WAL lets the CLI and the server use the file at once; writers wait for each other's lock
  // on a timer, never on the thread (busy_timeout 0, sqlite-lock-wait.ts); NORMAL sync is
  // durable across process crashes in WAL.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 0');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // SQLite's default page cache is 2 MB; reports over millions of views read rollup rows spread
  // over many pages. 64 MB of cache, and reads through a memory map instead of a read() each.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 1073741824');
  const checkpointer = options.checkpointThread && checkpointInBackground(sqlite, file, options.checkpointThread.onFailure);
  // Kysely prepares every query anew; preparing costs more than running a point lookup, so
  // statements are kept per SQL text (the SQL of a query builder chain is always the same).
  const statements = new LRUCache<string, SQLite.Statement>({ max: 500 });
  const database = {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      // Kysely opens transactions with a plain BEGIN, which takes the write lock only at the
      // first write. If another process commits between a transaction's first read and its
      // first write, that write fails at once with SQLITE_BUSY_SNAPSHOT, busy_timeout or not
      // (a worker process's view rollup failed that way under steady page traffic). BEGIN
      // IMMEDIATE takes the lock first, so writers of several processes wait their turn.
      const text = sqlText === 'begin' ? 'begin immediate' : sqlText;
      let statement = statements.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const db = new Kysely<Database>({
    dialect: new LockWaitingSqliteDialect({ database }, { inTransaction: () => sqlite.inTransaction, lockWaitMs }),
  });
  // Inside a read snapshot (readSnapshot) the counter stands still whatever other processes
  // commit: the caches then serve nothing until it ends.
  registerChangeFeed(
    db,
    counterFeed(
      () => dataVersion.get() as number,
      () => openReadSnapshots.has(db),
    ),
  );
  return {
    db,
    dialect: 'sqlite',
    limitQueryTime: () => undefined,
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

interface PostgresSettings {
  url: string;
  schema: string | undefined;
  poolSize: number;
  /** The longest wait for a connection, new or pooled. */
  connectTimeoutMs: number;
}

async function openPostgres({ url, schema, poolSize, connectTimeoutMs }: PostgresSettings, options: OpenOptions): Promise<DatabaseHandle> {
  if (schema) {
    const setup = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
    // A connection lost during set-up fails the query below; the event must not end the process.
    setup.on('error', () => undefined);
    try {
      await setup.connect();
      await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } catch (error) {
      // IF NOT EXISTS is checked before the insert into the catalog, not atomically with it:
      // of processes starting together on a new schema, all but one may fail with a unique
      // violation (23505) or duplicate_schema (42P06). Either means the schema now exists.
      if (!isDuplicateSchema(error)) throw pgFault(error);
    } finally {
      await setup.end();
    }
  }
  const connection: pg.ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
    // A server that vanished without closing its connections (a cut network) is noticed by
    // TCP keep-alive instead of at the next query.
    keepAlive: true,
    // JIT compilation off: it sets in on a query's estimated cost, and costs 50 to 250 ms to
    // compile, more than any of the service's queries takes to run. A year's overview spent
    // 253 ms compiling a 40 ms query once the tags table had statistics.
    options: schema ? `-c jit=off -c search_path="${schema}"` : '-c jit=off',
  };
  // Named, so an operator (or a test) tells the service's connections apart in pg_stat_activity.
  const poolName = `tagsvc ${schema ?? 'public'}`.slice(0, 63);
  const guard: PoolGuard = { queryTimeoutMs: 0, onConnectionLost: (reason) => options.onConnectionLost?.(reason) };
  const pool = new pg.Pool({ ...connection, application_name: poolName, max: poolSize });
  const db = new Kysely<Database>({ dialect: new SchemaBoundPostgresDialect({ pool: guardedPool(pool, guard) }, schema) });
  // One more connection, outside the pool: it listens for the changes that keep the caches exact.
  // Named, so an operator sees it in pg_stat_activity for what it is.
  const feed = new PgChangeFeed(
    { ...connection, application_name: `tagsvc cache feed ${schema ?? 'public'}`.slice(0, 63) },
    // A fence is one empty round trip: far shorter than a query may take, so a frozen server
    // costs the request that finds it little more than the query's own bound.
    () => Math.min(FENCE_LIMIT_MS, guard.queryTimeoutMs / 4),
  );
  registerChangeFeed(db, feed);
  return {
    db,
    dialect: 'postgres',
    schema,
    limitQueryTime: (ms) => {
      guard.queryTimeoutMs = ms;
    },
    close: async () => {
      await feed.close();
      await db.destroy();
    },
  };
}

function isDuplicateSchema(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === '42P06';
}

export async function openDatabase(
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'databaseSchema' | 'databasePoolSize' | 'dependencyTimeoutMs'>,
  options: OpenOptions = {},
): Promise<DatabaseHandle> {
  return config.databaseUrl
    ? openPostgres(
        {
          url: config.databaseUrl,
          schema: config.databaseSchema,
          poolSize: config.databasePoolSize,
          connectTimeoutMs: config.dependencyTimeoutMs,
        },
        options,
      )
    : openSqlite(config.dataDir, config.dependencyTimeoutMs, options);
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Kysely's migrator over every migration, keeping its bookkeeping in the database's schema. */
export function migratorOf({ db, schema }: Pick<DatabaseHandle, 'db' | 'schema'>): Migrator {
  // The migrator looks its bookkeeping tables up across all schemas; naming ours keeps
  // several schemas in one database (tests, tenants of a shared server) apart.
  return new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
}

/** Brings the schema up to the latest version; safe to run from several processes at once. */
export async function migrateToLatest(handle: Pick<DatabaseHandle, 'db' | 'schema'>): Promise<string[]> {
  const { error, results } = await migratorOf(handle).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** SQLite databases with a read snapshot open on their connection (see counterFeed's use above). */
const openReadSnapshots = new WeakSet<object>();

/**
 * Runs reads that must agree with one another (a report's parts) on one snapshot of the data,
 * so that a row moved between tables meanwhile (a day's visitors as they are sealed) is seen in
 * exactly one place. PostgreSQL: a REPEATABLE READ, read-only transaction. (Spreading the reads
 * over several connections sharing an exported snapshot would run them at once, but each
 * report would then hold one pooled connection while waiting for another: enough concurrent
 * reports would exhaust the pool and wait for ever.) SQLite: a deferred transaction, which
 * reads one snapshot without taking the write lock (Kysely's transactions begin IMMEDIATE here,
 * see openSqlite); the connection is held, so nothing else runs inside it.
 */
export async function readSnapshot<T>(db: Db, read: (snapshot: Db) => Promise<T>): Promise<T> {
  if (isPostgres(db)) return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
  return db.connection().execute(async (connection) => {
    // Marked from before it begins until after it ends: between those, data_version may lag.
    openReadSnapshots.add(db);
    try {
      await sql`begin deferred`.execute(connection);
      try {
        return await read(connection);
      } finally {
        await sql`commit`.execute(connection);
      }
    } finally {
      openReadSnapshots.delete(db);
    }
  });
}

/** True when the database answers a trivial query. */
export async function isDatabaseReachable(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/**
 * True for a write refused because `table.column` must be unique: another transaction wrote
 * the same value between a check and the write (SQLite names the column in its message,
 * PostgreSQL in the error's detail).
 */
export function isUniqueViolation(error: unknown, table: string, column: string): boolean {
  const {
    code,
    message,
    table: pgTable,
    detail,
  } = (error ?? {}) as { code?: unknown; message?: unknown; table?: unknown; detail?: unknown };
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') return typeof message === 'string' && message.includes(`${table}.${column}`);
  return code === '23505' && pgTable === table && typeof detail === 'string' && detail.startsWith(`Key (${column})=`);
}

/** True for a write refused by a foreign key (SQLite and PostgreSQL word it differently). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
