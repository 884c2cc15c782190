import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * On PostgreSQL, the primary keys of tag_daily and tag_monthly_dimensions carry the counts a tag
 * report reads (INCLUDE), so that a tag's year is an index-only scan of a few dozen adjacent
 * index pages. Without them the rows come from the heap, where the rollup appended them as the
 * days went by: a year of one tag's breakdowns is some 3,900 rows on as many pages, and a tag's
 * 365 days as many pages again, each a read once the tables outgrow shared_buffers. The cost is
 * on writes: an update of a count is no longer HOT. Group commit updates each rollup row once a
 * batch, whatever the batch's views, so that is a few index entries a batch, not a view.
 * SQLite has no INCLUDE and reads its pages through mmap; its tables stay as they are.
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

const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

async function setKeys(db: Kysely<unknown>, covering: boolean): Promise<void> {
  if (!isPostgres(db)) return;
  for (const key of KEYS) {
    const columns = sql.join(key.columns.map((c) => sql.ref(c)));
    const include = covering ? sql` INCLUDE (${sql.join(key.include.map((c) => sql.ref(c)))})` : sql``;
    await sql`ALTER TABLE ${sql.table(key.table)} DROP CONSTRAINT ${sql.ref(key.constraint)},
      ADD CONSTRAINT ${sql.ref(key.constraint)} PRIMARY KEY (${columns})${include}`.execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await setKeys(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await setKeys(db, false);
}
