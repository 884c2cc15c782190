import pg from 'pg';
import type { DayRows } from './day.js';
import { ROLLUPS_FROM_DAILY, TABLE_NAMES, TABLES, type Sink, type TagOwner } from './tables.js';

// Rows per INSERT … SELECT FROM unnest(): one array parameter per column, so the row count is
// not bounded by the 65,535 bound parameters a multi-row VALUES would hit.
const ROWS_PER_STATEMENT = 10_000;

/** Writes into the PostgreSQL schema, one transaction per day, commits without waiting for fsync. */
export class PostgresSink implements Sink {
  private constructor(
    private readonly client: pg.Client,
    /** The secondary indexes of views, dropped while loading and built at the end (as on SQLite). */
    private readonly viewIndexes: string[],
  ) {}

  static async open(url: string, schema: string | undefined): Promise<PostgresSink> {
    const client = new pg.Client({ connectionString: url, ...(schema ? { options: `-c search_path="${schema}"` } : {}) });
    await client.connect();
    await client.query('SET synchronous_commit = off');
    const indexes = await client.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'views'
         AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'views'::regclass)`,
    );
    for (const index of indexes.rows) await client.query(`DROP INDEX "${index.indexname}"`);
    return new PostgresSink(
      client,
      indexes.rows.map((index) => index.indexdef),
    );
  }

  async readTags(ids: string[]): Promise<TagOwner[]> {
    const result = await this.client.query<TagOwner>(
      'SELECT id, short_id, environment, owner_id, organization_id FROM tags WHERE id = ANY($1)',
      [ids],
    );
    return result.rows;
  }

  async countViews(): Promise<number> {
    return Number((await this.client.query<{ n: string }>('SELECT count(*) AS n FROM views')).rows[0]!.n);
  }

  async write(rows: Partial<DayRows>): Promise<void> {
    await this.client.query('BEGIN');
    try {
      for (const table of TABLE_NAMES) {
        const columns = TABLES[table];
        const sql = `INSERT INTO ${table} (${columns.map(([name]) => name).join(',')}) SELECT * FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(',')})`;
        const list = rows[table] ?? [];
        for (let i = 0; i < list.length; i += ROWS_PER_STATEMENT) {
          const chunk = list.slice(i, i + ROWS_PER_STATEMENT);
          await this.client.query(
            sql,
            columns.map((_, c) => chunk.map((row) => row[c])),
          );
        }
      }
      await this.client.query('COMMIT');
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  async finish(): Promise<void> {
    for (const sql of this.viewIndexes) await this.client.query(sql);
    for (const sql of ROLLUPS_FROM_DAILY) await this.client.query(sql);
    // Visitors were numbered by the generator: the service numbers new ones after them.
    await this.client.query(
      `SELECT setval(pg_get_serial_sequence('visitors', 'id'), coalesce((SELECT max(id) FROM visitors), 0) + 1, false)`,
    );
    // Autovacuum would vacuum and analyze these tables within minutes of such a load; doing it
    // now makes the first measurements see what a running deployment would: its plans, and
    // index-only scans of the covering keys (migration 0032), which read the heap of every page
    // not yet marked all-visible by a vacuum. The tags too, which the set-up created through
    // the API: without their statistics PostgreSQL takes a scope's 1,000 tags for one, and plans
    // joins on them as a deployment's database would not.
    for (const table of [...TABLE_NAMES, 'tags', 'scope_daily', 'tag_monthly', 'tag_monthly_dimensions', 'scope_monthly_dimensions'])
      await this.client.query(`VACUUM (ANALYZE) ${table}`);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
