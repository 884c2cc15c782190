import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/** A service's data, as the bench can reach it from outside. */
export interface DataLocation {
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
}

/**
 * One statement on the service's database behind its back: on SQLite beside the running
 * service (WAL lets both use the file at once), on PostgreSQL in its schema. `sql` uses `?`
 * placeholders on both databases.
 */
async function run<T>(
  location: DataLocation,
  sql: string,
  params: Array<string | number>,
  sqlite: (statement: Database.Statement) => T,
  postgres: (result: pg.QueryResult) => T,
): Promise<T> {
  if (!location.databaseUrl) {
    const db = new Database(join(location.dataDir, 'tagsvc.sqlite'), { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 60000');
      return sqlite(db.prepare(sql));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({
    connectionString: location.databaseUrl,
    ...(location.schema ? { options: `-c search_path="${location.schema}"` } : {}),
  });
  await client.connect();
  try {
    let n = 0;
    return postgres(
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      ),
    );
  } finally {
    await client.end();
  }
}

/**
 * One number from the service's database, read behind its back: what the scenarios check the
 * API's answers against (views stored, rows that an export must stream).
 */
export function queryNumber(location: DataLocation, sql: string, params: Array<string | number>): Promise<number> {
  const first = (row: unknown) => Number(Object.values((row ?? {}) as Record<string, unknown>)[0] ?? 0);
  return run(
    location,
    sql,
    params,
    (statement) => first(statement.get(...params)),
    (result) => first(result.rows[0]),
  );
}

/** Runs one writing statement on the service's database behind its back (scenario setup); returns rows changed. */
export function execute(location: DataLocation, sql: string, params: Array<string | number>): Promise<number> {
  return run(
    location,
    sql,
    params,
    (statement) => statement.run(...params).changes,
    (result) => result.rowCount ?? 0,
  );
}
