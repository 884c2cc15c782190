import { sql, type ExpressionBuilder } from 'kysely';
import { isPostgres, type Db } from '../../db/database.js';
import { dimensionValues, SCOPE_DIMENSIONS, TAG_DIMENSIONS } from '../../db/dimensions.js';
import type { Database, Dimension } from '../../db/schema.js';
import { inScope, type Scope } from '../accounts/index.js';

/** What the reports read: the rollups' counts and the stored views. */

export interface Range {
  /** Inclusive ISO timestamp. */
  from: string;
  /** Exclusive ISO timestamp. */
  to: string;
}

export function hourlyRows(db: Db, tagId: string, range: Range) {
  return db
    .selectFrom('tag_hourly')
    .select([
      'hour as bucket',
      'views',
      'qr_scans',
      'direct_visits',
      'duration_sum',
      'duration_count',
      'unique_visitors as unique_views',
      'bot_views',
    ])
    .where('tag_id', '=', tagId)
    .where('hour', '>=', range.from)
    .where('hour', '<', range.to)
    .execute();
}

export function dailyRows(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily')
    .select(['day as bucket', 'views', 'qr_scans', 'direct_visits', 'duration_sum', 'duration_count', 'unique_views', 'bot_views'])
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .execute();
}

/** Whether the tag has a daily row on any of days [from, to) (one index probe). */
export async function tagHasDays(db: Db, tagId: string, days: { from: string; to: string }): Promise<boolean> {
  const row = await db
    .selectFrom('tag_daily')
    .select('day')
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Views per dimension and value over days [from, to). */
export function dailyDimensionTotals(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily_dimensions')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy(['dimension', 'value'])
    .execute();
}

/** Views per dimension and value over whole months [from, to) (YYYY-MM-01). */
export function monthlyDimensionTotals(db: Db, tagId: string, months: { from: string; to: string }) {
  return db
    .selectFrom('tag_monthly_dimensions')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('tag_id', '=', tagId)
    .where('month', '>=', months.from)
    .where('month', '<', months.to)
    .groupBy(['dimension', 'value'])
    .execute();
}

/** The rows of a scope's own tables (scope_daily, scope_day_visitors) on days [from, to). */
export function ofScopeDays(scope: Scope, days: { from: string; to: string }) {
  return (eb: ExpressionBuilder<Database, 'scope_daily' | 'scope_day_visitors'>) =>
    eb.and([
      eb('environment', '=', scope.environment),
      eb('scope_id', '=', scope.organizationId ?? scope.userId),
      eb('day', '>=', days.from),
      eb('day', '<', days.to),
    ]);
}

/** Whether the scope has a daily row on any of days [from, to) (one index probe). */
export async function scopeHasDays(db: Db, scope: Scope, days: { from: string; to: string }): Promise<boolean> {
  const row = await db.selectFrom('scope_daily').select('day').where(ofScopeDays(scope, days)).limit(1).executeTakeFirst();
  return row !== undefined;
}

export function scopeDailyRows(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db.selectFrom('scope_daily').select(['day', 'views', 'qr_scans', 'bot_views']).where(ofScopeDays(scope, days)).execute();
}

/**
 * Views per dimension and value over instants [from, to), counted from the stored views: the
 * hours at the ends of a period in a time zone, which no daily rollup holds alone.
 */
export async function viewDimensionTotals(db: Db, tagId: string, range: Range) {
  const values = dimensionValues(isPostgres(db));
  const parts = TAG_DIMENSIONS.map(
    (dimension) =>
      sql`SELECT ${dimension} AS dimension, ${sql.raw(values[dimension])} AS value FROM views
        WHERE tag_id = ${tagId} AND occurred_at >= ${range.from} AND occurred_at < ${range.to}`,
  );
  const { rows } = await sql<{ dimension: Dimension; value: string; views: number | string }>`
    SELECT dimension, value, count(*) AS views FROM (${sql.join(parts, sql` UNION ALL `)}) v GROUP BY dimension, value`.execute(db);
  return rows;
}

/** The distinct visitors of a tag's stored views over instants [from, to). */
export async function viewVisitors(db: Db, tagId: string, range: Range): Promise<string[]> {
  const rows = await db
    .selectFrom('views')
    .select('visitor')
    .distinct()
    .where('tag_id', '=', tagId)
    .where('occurred_at', '>=', range.from)
    .where('occurred_at', '<', range.to)
    .execute();
  return rows.map((row) => row.visitor);
}

/** The scope's views per dimension and value over days [from, to) (the overview's breakdowns). */
export function scopeDailyDimensionTotals(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db
    .selectFrom('scope_daily_dimensions')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('environment', '=', scope.environment)
    .where('scope_id', '=', scope.organizationId ?? scope.userId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy(['dimension', 'value'])
    .execute();
}

/** The same over whole months [from, to) (YYYY-MM-01). */
export function scopeMonthlyDimensionTotals(db: Db, scope: Scope, months: { from: string; to: string }) {
  return db
    .selectFrom('scope_monthly_dimensions')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('environment', '=', scope.environment)
    .where('scope_id', '=', scope.organizationId ?? scope.userId)
    .where('month', '>=', months.from)
    .where('month', '<', months.to)
    .groupBy(['dimension', 'value'])
    .execute();
}

/** The scope's hours [from, to) (YYYY-MM-DDTHH:00:00Z): the overview's days in a time zone. */
export function scopeHourlyRows(db: Db, scope: Scope, hours: Range) {
  return db
    .selectFrom('scope_hourly')
    .select(['hour', 'views', 'qr_scans', 'bot_views'])
    .where('environment', '=', scope.environment)
    .where('scope_id', '=', scope.organizationId ?? scope.userId)
    .where('hour', '>=', hours.from)
    .where('hour', '<', hours.to)
    .execute();
}

/** Views per tag of the scope over hours [from, to): the hours at the ends of a period in a time zone. */
export function hourlyTagViews(db: Db, scope: Scope, hours: Range) {
  return db
    .selectFrom('tag_hourly')
    .innerJoin('tags', 'tags.id', 'tag_hourly.tag_id')
    .select(['tag_hourly.tag_id', (eb) => eb.fn.sum<number | string>('tag_hourly.views').as('views')])
    .where(inScope(scope, 'tags'))
    .where('tag_hourly.hour', '>=', hours.from)
    .where('tag_hourly.hour', '<', hours.to)
    .groupBy('tag_hourly.tag_id')
    .execute();
}

/** The scope's views per overview dimension and value over instants [from, to), from its stored views. */
export function scopeViewDimensionTotals(db: Db, scope: Scope, range: Range) {
  const values = dimensionValues(isPostgres(db));
  const [first, ...rest] = SCOPE_DIMENSIONS.map((dimension) =>
    db
      .selectFrom('views')
      .select([sql<Dimension>`${dimension}`.as('dimension'), sql<string>`${sql.raw(values[dimension])}`.as('value')])
      .where(inScope(scope))
      .where('occurred_at', '>=', range.from)
      .where('occurred_at', '<', range.to),
  );
  const all = rest.reduce((union, part) => union.unionAll(part), first!);
  return db
    .selectFrom(all.as('v'))
    .select(['v.dimension', 'v.value', (eb) => eb.fn.countAll<number | string>().as('views')])
    .groupBy(['v.dimension', 'v.value'])
    .execute();
}

/** Views per tag over whole months [from, to) (YYYY-MM-01). */
export function monthlyTagViews(db: Db, scope: Scope, months: { from: string; to: string }) {
  return db
    .selectFrom('tag_monthly')
    .select(['tag_id', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('environment', '=', scope.environment)
    .where('scope_id', '=', scope.organizationId ?? scope.userId)
    .where('month', '>=', months.from)
    .where('month', '<', months.to)
    .groupBy('tag_id')
    .execute();
}

/** Views per tag over days [from, to). */
export function dailyTagViews(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily')
    .select(['tag_id', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where(inScope(scope))
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy('tag_id')
    .execute();
}

/** Views of each of the scope's tags `tagIds` over days [from, to) (tags without any are absent). */
export function dailyViewsOfTags(db: Db, scope: Scope, tagIds: readonly string[], days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily')
    .select(['tag_id', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where(inScope(scope))
    .where('tag_id', 'in', tagIds)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy('tag_id')
    .execute();
}

export function tagTitles(db: Db, tagIds: string[]) {
  return tagIds.length === 0 ? Promise.resolve([]) : db.selectFrom('tags').select(['id', 'title']).where('id', 'in', tagIds).execute();
}

/** Where a range of instants starts (`at`: inclusive, `after`: exclusive) and ends (`before`: exclusive, `through`: inclusive). */
export type InstantFrom = { at: string } | { after: string };
export type InstantUntil = { before: string } | { through: string };

/** A tag's views (or logged views) between `from` and `until`. */
function tagViewsBetween(db: Db, tagId: string, from: InstantFrom, until: InstantUntil, loggedOnly: boolean) {
  let query = db
    .selectFrom('views')
    .where('tag_id', '=', tagId)
    .where('occurred_at', 'at' in from ? '>=' : '>', 'at' in from ? from.at : from.after)
    .where('occurred_at', 'before' in until ? '<' : '<=', 'before' in until ? until.before : until.through);
  if (loggedOnly) query = query.where('logged', '=', 1);
  return query;
}

/** How many of a tag's views (or logged views) lie between `from` and `until`. */
export async function countViews(db: Db, tagId: string, from: InstantFrom, until: InstantUntil, loggedOnly: boolean): Promise<number> {
  const row = await tagViewsBetween(db, tagId, from, until, loggedOnly)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * The instant of the tag's view `n` views (of those tagViewsBetween selects) after the first,
 * read from the index alone; undefined when there are not that many.
 */
export async function tagViewAfter(
  db: Db,
  tagId: string,
  from: InstantFrom,
  until: InstantUntil,
  loggedOnly: boolean,
  n: number,
): Promise<string | undefined> {
  const row = await tagViewsBetween(db, tagId, from, until, loggedOnly)
    .select('occurred_at')
    .orderBy('occurred_at')
    .limit(1)
    .offset(n)
    .executeTakeFirst();
  return row?.occurred_at;
}

export function listViews(db: Db, tagId: string, range: Range, page: { limit: number; offset: number; loggedOnly: boolean }) {
  let query = db
    .selectFrom('views')
    .selectAll()
    .where('tag_id', '=', tagId)
    .where('occurred_at', '>=', range.from)
    .where('occurred_at', '<', range.to);
  if (page.loggedOnly) query = query.where('logged', '=', 1);
  return query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export function countViewsSince(db: Db, tagId: string, since: string) {
  return db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tag_id', '=', tagId)
    .where('occurred_at', '>=', since)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.count));
}
