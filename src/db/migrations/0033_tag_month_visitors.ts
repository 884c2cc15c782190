import { sql, type Kysely } from 'kysely';

/**
 * tag_month_visitors: a closed UTC month's distinct visitors of a tag, the union of its days'
 * sets (tag_day_visitors), so a tag's year of distinct visitors is read from about 12 rows
 * instead of 365: a busy tag's day sets each sit on a page of their own, the reads a tag
 * report waited on once the table outgrew the database's cache. `month` is the month's first
 * day, as the other monthly rollups key it.
 *
 * As with scope_month_visitors (migration 0029), a row marked `stale` is a set to build, which
 * reports ignore: the seal job builds it once every day of the month is closed, and marks it
 * stale again whenever one of those days' sets changes. The rows this migration adds, one per
 * month with day sets, stale and empty, are the backfill of the months closed before it. A
 * built set has a revision, as the scope sets have (migration 0031): a process keeps the sets it
 * decoded, so a report of a busy tag fetches a year's 2 MB of sets once, not on every request.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tag_month_visitors')
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('visitors', 'text', (c) => c.notNull())
    .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('revision', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('tag_month_visitors_pk', ['tag_id', 'month'])
    .execute();
  // What the seal job looks for every minute: the tags' months just over among years of them.
  await sql`CREATE INDEX tag_month_visitors_stale_idx ON tag_month_visitors (month) WHERE stale = 1`.execute(db);
  await sql`INSERT INTO tag_month_visitors (tag_id, month, visitors, stale)
    SELECT DISTINCT tag_id, substr(day, 1, 7) || '-01', '', 1 FROM tag_day_visitors`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tag_month_visitors').execute();
}
