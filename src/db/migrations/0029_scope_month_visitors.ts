import { sql, type Kysely } from 'kysely';

/**
 * scope_month_visitors: a closed UTC month's distinct visitors of an account (or organization)
 * in one environment: the union of its days' scope sets (scope_day_visitors), so the overview
 * counts a year's visitors from about 12 sets instead of 365. `month` is the month's first day,
 * as the other monthly rollups key it.
 *
 * A row marked `stale` is a set to build, which reports ignore: the seal job builds it once
 * every day of the month is closed, and marks it stale again whenever one of those days' sets
 * changes. So the rows this migration adds, one per month with scope-day sets, stale and empty,
 * are the backfill of the months closed before it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scope_month_visitors')
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('visitors', 'text', (c) => c.notNull())
    .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(1))
    .addPrimaryKeyConstraint('scope_month_visitors_pk', ['environment', 'scope_id', 'month'])
    .execute();
  // What the seal job looks for every minute: a handful of rows among years of months.
  await sql`CREATE INDEX scope_month_visitors_stale_idx ON scope_month_visitors (month) WHERE stale = 1`.execute(db);
  await sql`INSERT INTO scope_month_visitors (environment, scope_id, month, visitors, stale)
    SELECT DISTINCT environment, scope_id, substr(day, 1, 7) || '-01', '', 1 FROM scope_day_visitors`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scope_month_visitors').execute();
}
