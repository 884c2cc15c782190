import { setImmediate } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
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

/** Analytics records of a tag (its views, rollups and link clicks) go with it, and its share of its scope's totals. */
export async function deleteTagAnalytics(trx: Db, tagId: string): Promise<void> {
  // The tag's daily rows, then its scope's: the order in which sealers lock them (PostgreSQL).
  // Ingestion, which writes rollup rows too, waits for the rollup lock (tag-dependent.ts).
  await forUpdate(trx, trx.selectFrom('tag_daily').select('day').where('tag_id', '=', tagId)).execute();
  // Its scope's sets of its closed days still hold its visitors: rebuilt without them later.
  // Its share of its scope's rows, each under the scope its day was counted in (tag_daily);
  // a month's breakdowns under the tag's scope now (a month's days may be gone already).
  await inTagChunks(trx, 'tag_daily', 'day', tagId, async (range) => {
    await sql`UPDATE scope_day_visitors SET stale = 1
      FROM tag_daily d
      WHERE d.tag_id = ${tagId} AND ${within(sql.ref('d.day'), range)} AND scope_day_visitors.environment = d.environment
        AND scope_day_visitors.scope_id = coalesce(d.organization_id, d.owner_id) AND scope_day_visitors.day = d.day`.execute(trx);
    // And so do the sets of their months (built from the days' sets).
    await sql`UPDATE scope_month_visitors SET stale = 1
      FROM tag_daily d
      WHERE d.tag_id = ${tagId} AND ${within(sql.ref('d.day'), range)} AND scope_month_visitors.environment = d.environment
        AND scope_month_visitors.scope_id = coalesce(d.organization_id, d.owner_id)
        AND scope_month_visitors.month = substr(d.day, 1, 7) || '-01'`.execute(trx);
    await sql`UPDATE scope_daily
      SET views = scope_daily.views - d.views, qr_scans = scope_daily.qr_scans - d.qr_scans, bot_views = scope_daily.bot_views - d.bot_views
      FROM tag_daily d
      WHERE d.tag_id = ${tagId} AND ${within(sql.ref('d.day'), range)} AND scope_daily.environment = d.environment
        AND scope_daily.scope_id = coalesce(d.organization_id, d.owner_id) AND scope_daily.day = d.day`.execute(trx);
  });
  await inTagChunks(trx, 'tag_hourly', 'hour', tagId, (range) =>
    sql`UPDATE scope_hourly
      SET views = scope_hourly.views - h.views, qr_scans = scope_hourly.qr_scans - h.qr_scans, bot_views = scope_hourly.bot_views - h.bot_views
      FROM tag_hourly h JOIN tag_daily d ON d.tag_id = h.tag_id AND d.day = substr(h.hour, 1, 10)
      WHERE h.tag_id = ${tagId} AND ${within(sql.ref('h.hour'), range)} AND scope_hourly.environment = d.environment
        AND scope_hourly.scope_id = coalesce(d.organization_id, d.owner_id) AND scope_hourly.hour = h.hour`.execute(trx),
  );
  await subtractScopeBreakdowns(trx, tagId, 'day', sql`tag_daily t ON t.tag_id = d.tag_id AND t.day = d.day`);
  await subtractScopeBreakdowns(trx, tagId, 'month', sql`tags t ON t.id = d.tag_id`);
  for (const [table, column] of [
    ['views', 'occurred_at'],
    ['tag_hourly', 'hour'],
    ['tag_daily_dimensions', 'day'],
    ['tag_monthly_dimensions', 'month'],
    ['tag_visitor_hours', 'hour'],
    ['tag_visitor_days', 'day'],
    ['tag_day_visitors', 'day'],
    ['tag_month_visitors', 'month'],
    ['tag_monthly', 'month'],
    ['tag_daily', 'day'],
    ['link_clicks', 'occurred_at'],
  ] as const) {
    await inTagChunks(trx, table, column, tagId, (range) =>
      sql`DELETE FROM ${sql.table(table)} WHERE tag_id = ${tagId} AND ${within(sql.ref(column), range)}`.execute(trx),
    );
  }
}

/**
 * Takes the tag's overview breakdowns (its tag_daily_dimensions or tag_monthly_dimensions rows,
 * by `bucket`) off its scope's, the scope found through `owner`, a join that names it `t`.
 */
function subtractScopeBreakdowns(trx: Db, tagId: string, bucket: 'day' | 'month', owner: RawBuilder<unknown>) {
  const period = bucket === 'day' ? 'daily' : 'monthly';
  const [target, source] = [`scope_${period}_dimensions`, `tag_${period}_dimensions`];
  const column = (name: string) => sql.ref(`${target}.${name}`);
  return inTagChunks(trx, source, bucket, tagId, (range) =>
    sql`UPDATE ${sql.table(target)} SET views = ${column('views')} - d.views
      FROM ${sql.table(source)} d JOIN ${owner}
      WHERE d.tag_id = ${tagId} AND ${within(sql.ref(`d.${bucket}`), range)} AND d.dimension IN (${sql.join(SCOPE_DIMENSIONS)})
        AND ${column('environment')} = t.environment AND ${column('scope_id')} = coalesce(t.organization_id, t.owner_id)
        AND ${column(bucket)} = ${sql.ref(`d.${bucket}`)} AND ${column('dimension')} = d.dimension AND ${column('value')} = d.value`.execute(
      trx,
    ),
  );
}

/** Rows of a tag one statement of its deletion reads or writes, about: a few milliseconds of the thread. */
const TAG_ROWS_PER_STATEMENT = 2000;

/** A range of a column's values: from `from` (inclusive) to `to` (exclusive); either open. */
interface ValueRange {
  from?: string;
  to?: string;
}

/** `ref` within `range`, in SQL. */
function within(ref: RawBuilder<unknown> | ReturnType<typeof sql.ref>, range: ValueRange) {
  const bounds = [
    ...(range.from === undefined ? [] : [sql`${ref} >= ${range.from}`]),
    ...(range.to === undefined ? [] : [sql`${ref} < ${range.to}`]),
  ];
  return bounds.length === 0 ? sql`true` : sql.join(bounds, sql` AND `);
}

/**
 * Runs `step` over the tag's rows of `table` in consecutive ranges of `column` (the key after
 * tag_id), about TAG_ROWS_PER_STATEMENT rows each, giving the thread back between them. Inside
 * the deletion's one transaction: on SQLite other queries wait for its connection meanwhile,
 * but other requests run (a year of hourly and breakdown rows is tens of thousands of rows).
 * More rows than a range's share with one value go in one range.
 */
async function inTagChunks(trx: Db, table: string, column: string, tagId: string, step: (range: ValueRange) => Promise<unknown>) {
  let from: string | undefined;
  for (;;) {
    const next = await sql<{ value: string }>`SELECT ${sql.ref(column)} AS value FROM ${sql.table(table)}
      WHERE tag_id = ${tagId} AND ${within(sql.ref(column), { from })} ORDER BY ${sql.ref(column)} LIMIT 1 OFFSET ${TAG_ROWS_PER_STATEMENT}`.execute(
      trx,
    );
    let to = next.rows[0]?.value;
    if (to !== undefined && to === from) {
      const after = await sql<{ value: string | null }>`SELECT min(${sql.ref(column)}) AS value FROM ${sql.table(table)}
        WHERE tag_id = ${tagId} AND ${sql.ref(column)} > ${from}`.execute(trx);
      to = after.rows[0]?.value ?? undefined;
    }
    await step({ from, to });
    if (to === undefined) return;
    from = to;
    await setImmediate();
  }
}
