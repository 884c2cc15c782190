import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { DayRows } from './day.js';
import { ROLLUPS_FROM_DAILY, TABLE_NAMES, TABLES, type Sink, type TagOwner } from './tables.js';

// Rows per INSERT: fewer statement executions; views have 19 columns, well under SQLite's
// 32,766 bound parameters.
const ROWS_PER_STATEMENT = 200;

/**
 * Writes straight into DATA_DIR/tagsvc.sqlite, with the service stopped. Durability is traded
 * for speed while generating (no journal, no fsync): a generation that dies half way leaves no
 * manifest, and the dataset is generated again from scratch.
 */
export class SqliteSink implements Sink {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** The secondary indexes of views, dropped while loading (see the constructor). */
  private readonly viewIndexes: string[];

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, 'tagsvc.sqlite'));
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('locking_mode = EXCLUSIVE');
    // 2 GB of page cache: the indexes of 10 million views and their rollups stay in memory
    // while rows are added all over them.
    this.db.pragma('cache_size = -2000000');
    this.db.pragma('temp_store = MEMORY');
    // Views arrive in time order, so the table and its id index only ever grow at the end, but
    // the (tag, time) and time indexes would take rows all over; building them once at the end,
    // sorted, halves the cost of a view.
    const indexes = this.db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'views' AND sql IS NOT NULL")
      .all() as Array<{ name: string; sql: string }>;
    this.viewIndexes = indexes.map((index) => index.sql);
    for (const index of indexes) this.db.exec(`DROP INDEX "${index.name}"`);
  }

  async readTags(ids: string[]): Promise<TagOwner[]> {
    const select = this.db.prepare(
      `SELECT id, short_id, environment, owner_id, organization_id FROM tags WHERE id IN (${ids.map(() => '?').join(',')})`,
    );
    return select.all(...ids) as TagOwner[];
  }

  async countViews(): Promise<number> {
    return (this.db.prepare('SELECT count(*) AS n FROM views').get() as { n: number }).n;
  }

  private statement(table: keyof DayRows, rows: number): Database.Statement {
    const key = `${table}|${rows}`;
    let statement = this.statements.get(key);
    if (!statement) {
      const columns = TABLES[table].map(([name]) => name);
      const row = `(${columns.map(() => '?').join(',')})`;
      statement = this.db.prepare(
        `INSERT INTO ${table} (${columns.join(',')}) VALUES ${Array.from({ length: rows }, () => row).join(',')}`,
      );
      this.statements.set(key, statement);
    }
    return statement;
  }

  async write(rows: Partial<DayRows>): Promise<void> {
    this.db.transaction(() => {
      for (const table of TABLE_NAMES) {
        const list = rows[table] ?? [];
        for (let i = 0; i < list.length; i += ROWS_PER_STATEMENT) {
          const chunk = list.slice(i, i + ROWS_PER_STATEMENT);
          this.statement(table, chunk.length).run(chunk.flat());
        }
      }
    })();
  }

  async finish(): Promise<void> {
    for (const sql of this.viewIndexes) this.db.exec(sql);
    for (const sql of ROLLUPS_FROM_DAILY) this.db.exec(sql);
    // The service opens the file in WAL mode; no ANALYZE: the service never runs one, and the
    // figures should be those of a database it grew itself.
    this.db.pragma('locking_mode = NORMAL');
    this.db.pragma('journal_mode = WAL');
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
