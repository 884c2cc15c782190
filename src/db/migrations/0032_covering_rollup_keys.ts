import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * A tag report's days and breakdowns read from adjacent pages. The rollup appends a tag's rows
 * as the days go by, so a busy tag's year of breakdowns is some 3,900 rows on as many pages and
 * its 365 days as many again: each a read once the tables outgrow the database's cache.
 *
 * On PostgreSQL the primary keys of tag_daily and tag_monthly_dimensions carry the counts a tag
 * report reads (INCLUDE): its reads are index-only scans of a few dozen adjacent index pages.
 * The cost is on writes: an update of a count is no longer HOT. Group commit updates each rollup
 * row once a batch, whatever the batch's views, so that is a few index entries a batch.
 *
 * On SQLite, which has no INCLUDE, tag_daily becomes WITHOUT ROWID: its rows are the primary
 * key's B-tree, a tag's year a handful of pages. tag_monthly_dimensions stays: its year is read
 * in about the time its GROUP BY takes either way (measured, docs/analytics.md).
 */
const DAILY_COUNTS = ['views', 'qr_scans', 'direct_visits', 'duration_sum', 'duration_count', 'unique_views', 'bot_views'];

const KEYS: Array<{ table: string; constraint: string; columns: string[]; include: string[] }> = [
  { table: 'tag_daily', constraint: 'tag_daily_pk', columns: ['tag_id', 'day'], include: DAILY_COUNTS },
  {
    table: 'tag_monthly_dimensions',
    constraint: 'tag_monthly_dimensions_pk',
    columns: ['tag_id', 'month', 'dimension', 'value'],
    include: ['views'],
  },
];

async function arrangeForReports(db: Kysely<unknown>, arranged: boolean): Promise<void> {
  if (!isPostgres(db)) return clusterDailyRows(db, arranged);
  for (const key of KEYS) {
    const columns = sql.join(key.columns.map((c) => sql.ref(c)));
    const include = arranged ? sql` INCLUDE (${sql.join(key.include.map((c) => sql.ref(c)))})` : sql``;
    await sql`ALTER TABLE ${sql.table(key.table)} DROP CONSTRAINT ${sql.ref(key.constraint)},
      ADD CONSTRAINT ${sql.ref(key.constraint)} PRIMARY KEY (${columns})${include}`.execute(db);
  }
}

/**
 * Rebuilds SQLite's tag_daily, WITHOUT ROWID or not, from its own stored definition (the
 * columns migrations 0005 to 0021 gave it), with its indexes.
 */
async function clusterDailyRows(db: Kysely<unknown>, clustered: boolean): Promise<void> {
  const { rows } = await sql<{ type: string; sql: string }>`SELECT type, sql FROM sqlite_master
    WHERE tbl_name = 'tag_daily' AND type IN ('table', 'index') AND sql IS NOT NULL`.execute(db);
  const table = rows.find((row) => row.type === 'table')!.sql;
  const columns = table.replace(/^CREATE TABLE\s+"?tag_daily"?/i, 'CREATE TABLE "tag_daily_rebuilt"').replace(/\s*WITHOUT ROWID\s*$/i, '');
  await sql.raw(clustered ? `${columns} WITHOUT ROWID` : columns).execute(db);
  await sql`INSERT INTO tag_daily_rebuilt SELECT * FROM tag_daily`.execute(db);
  await db.schema.dropTable('tag_daily').execute();
  await db.schema.alterTable('tag_daily_rebuilt').renameTo('tag_daily').execute();
  for (const index of rows.filter((row) => row.type === 'index')) await sql.raw(index.sql).execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await arrangeForReports(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await arrangeForReports(db, false);
}
