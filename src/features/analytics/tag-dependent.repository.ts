import { setImmediate } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { forUpdate } from '../../db/locks.js';
import { SCOPE_DIMENSIONS } from '../../db/dimensions.js';

/** A tag's analytics deleted with the tag. */

/**
 * Deletes up to `limit` of the tag's stored views (all counted in the rollups already); returns
 * how many. Found through the (tag_id, occurred_at) index, oldest first.
 */
export async function deleteViewsOfTag(trx: Db, tagId: string, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('views')
    .where('id', 'in', (eb) => eb.selectFrom('views').select('id').where('tag_id', '=', tagId).orderBy('occurred_at').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Analytics records of a tag (its views, rollups and link clicks) go with it, and its share of its scope's daily totals. */
export async function deleteTagAnalytics(trx: Db, tagId: string): Promise<void> {
  // The tag's daily rows, then its scope's: the order in which sealers lock them (PostgreSQL).
  // Ingestion, which writes rollup rows too, waits for the rollup lock (tag-dependent.ts).
  await forUpdate(trx, trx.selectFrom('tag_daily').select('day').where('tag_id', '=', tagId)).execute();
  // Its scope's sets of its closed days still hold its visitors: rebuilt without them later.
  await sql`UPDATE scope_day_visitors SET stale = 1
    FROM tag_daily d
    WHERE d.tag_id = ${tagId} AND scope_day_visitors.environment = d.environment
      AND scope_day_visitors.scope_id = coalesce(d.organization_id, d.owner_id) AND scope_day_visitors.day = d.day`.execute(trx);
  await sql`UPDATE scope_daily
    SET views = scope_daily.views - d.views, qr_scans = scope_daily.qr_scans - d.qr_scans, bot_views = scope_daily.bot_views - d.bot_views
    FROM tag_daily d
    WHERE d.tag_id = ${tagId} AND scope_daily.environment = d.environment
      AND scope_daily.scope_id = coalesce(d.organization_id, d.owner_id) AND scope_daily.day = d.day`.execute(trx);
  // Its share of its scope's breakdowns: a day's under the scope of its tag_daily row, as
  // scope_daily's; a month's under the tag's scope now (a month's days may be gone already).
  await sql`UPDATE scope_daily_dimensions SET views = scope_daily_dimensions.views - d.views
    FROM tag_daily_dimensions d JOIN tag_daily t ON t.tag_id = d.tag_id AND t.day = d.day
    WHERE d.tag_id = ${tagId} AND d.dimension IN (${sql.join(SCOPE_DIMENSIONS)})
      AND scope_daily_dimensions.environment = t.environment AND scope_daily_dimensions.scope_id = coalesce(t.organization_id, t.owner_id)
      AND scope_daily_dimensions.day = d.day AND scope_daily_dimensions.dimension = d.dimension
      AND scope_daily_dimensions.value = d.value`.execute(trx);
  await sql`UPDATE scope_monthly_dimensions SET views = scope_monthly_dimensions.views - d.views
    FROM tag_monthly_dimensions d JOIN tags t ON t.id = d.tag_id
    WHERE d.tag_id = ${tagId} AND d.dimension IN (${sql.join(SCOPE_DIMENSIONS)})
      AND scope_monthly_dimensions.environment = t.environment AND scope_monthly_dimensions.scope_id = coalesce(t.organization_id, t.owner_id)
      AND scope_monthly_dimensions.month = d.month AND scope_monthly_dimensions.dimension = d.dimension
      AND scope_monthly_dimensions.value = d.value`.execute(trx);
  for (const [table, column] of [
    ['views', 'occurred_at'],
    ['tag_hourly', 'hour'],
    ['tag_daily_dimensions', 'day'],
    ['tag_monthly_dimensions', 'month'],
    ['tag_visitor_hours', 'hour'],
    ['tag_visitor_days', 'day'],
    ['tag_day_visitors', 'day'],
    ['tag_monthly', 'month'],
    ['tag_daily', 'day'],
    ['link_clicks', 'occurred_at'],
  ] as const) {
    await deleteTagRows(trx, table, column, tagId);
  }
}

/** Rows of a tag one statement of its deletion deletes, about: a few milliseconds of the thread. */
const TAG_ROWS_PER_STATEMENT = 2000;

/**
 * Deletes the tag's rows of `table`, about TAG_ROWS_PER_STATEMENT at a time in `column` order
 * (the key after tag_id), giving the thread back between statements. Inside the deletion's one
 * transaction: on SQLite other queries wait for its connection meanwhile, but other requests
 * run (a year of hourly and breakdown rows is tens of thousands of rows).
 */
async function deleteTagRows(trx: Db, table: string, column: string, tagId: string): Promise<void> {
  for (;;) {
    const bound = await sql<{ value: string }>`SELECT ${sql.ref(column)} AS value FROM ${sql.table(table)}
      WHERE tag_id = ${tagId} ORDER BY ${sql.ref(column)} LIMIT 1 OFFSET ${TAG_ROWS_PER_STATEMENT}`.execute(trx);
    const value = bound.rows[0]?.value;
    if (value === undefined) {
      await sql`DELETE FROM ${sql.table(table)} WHERE tag_id = ${tagId}`.execute(trx);
      return;
    }
    const deleted = await sql`DELETE FROM ${sql.table(table)} WHERE tag_id = ${tagId} AND ${sql.ref(column)} < ${value}`.execute(trx);
    // More rows than a statement's share with one value: they go together.
    if (Number(deleted.numAffectedRows ?? 0) === 0)
      await sql`DELETE FROM ${sql.table(table)} WHERE tag_id = ${tagId} AND ${sql.ref(column)} <= ${value}`.execute(trx);
    await setImmediate();
  }
}
