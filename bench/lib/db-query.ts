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
 * One number from the service's database, read behind its back: what the scenarios check the
 * API's answers against (views stored, rows that an export must stream). `sql` uses `?`
 * placeholders on both databases.
 */
export async function queryNumber(location: DataLocation, sql: string, params: Array<string | number>): Promise<number> {
  if (!location.databaseUrl) {
    // Read-only, beside the running service: WAL lets both use the file at once.
    const db = new Database(join(location.dataDir, 'tagsvc.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return Number(Object.values(db.prepare(sql).get(...params) as Record<string, unknown>)[0] ?? 0);
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
    const result = await client.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
    return Number(Object.values(result.rows[0] as Record<string, unknown>)[0] ?? 0);
  } finally {
    await client.end();
  }
}

/** Runs one writing statement on the service's database behind its back (scenario setup); returns rows changed. */
export async function execute(location: DataLocation, sql: string, params: Array<string | number>): Promise<number> {
  if (!location.databaseUrl) {
    const db = new Database(join(location.dataDir, 'tagsvc.sqlite'), { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 60000');
      return db.prepare(sql).run(...params).changes;
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
    const result = await client.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
    return result.rowCount ?? 0;
  } finally {
    await client.end();
  }
}
