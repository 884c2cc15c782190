import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { TagDailyDimensionsTable, TagDailyTable, TagHourlyTable, ViewsTable } from '../../db/schema.js';
import { inScope, type Scope } from '../accounts/scope.js';

/** All SQL for views and their rollups. */

const VIEW_ROWS_PER_INSERT = 40;

export async function insertViews(trx: Db, rows: ViewsTable[]): Promise<void> {
  // Chunked: SQLite caps the number of bound parameters in one statement.
  for (let i = 0; i < rows.length; i += VIEW_ROWS_PER_INSERT) {
    await trx.insertInto('views').values(rows.slice(i, i + VIEW_ROWS_PER_INSERT)).execute();
  }
}

export async function addHourly(trx: Db, row: TagHourlyTable): Promise<void> {
  await trx
    .insertInto('tag_hourly')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tag_id', 'hour']).doUpdateSet((eb) => ({
        views: eb('tag_hourly.views', '+', eb.ref('excluded.views')),
        qr_scans: eb('tag_hourly.qr_scans', '+', eb.ref('excluded.qr_scans')),
        direct_visits: eb('tag_hourly.direct_visits', '+', eb.ref('excluded.direct_visits')),
        duration_sum: eb('tag_hourly.duration_sum', '+', eb.ref('excluded.duration_sum')),
        duration_count: eb('tag_hourly.duration_count', '+', eb.ref('excluded.duration_count')),
      })),
    )
    .execute();
}

export async function addDimension(trx: Db, row: TagDailyDimensionsTable): Promise<void> {
  await trx
    .insertInto('tag_daily_dimensions')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tag_id', 'day', 'dimension', 'value']).doUpdateSet((eb) => ({ views: eb('tag_daily_dimensions.views', '+', eb.ref('excluded.views')) })),
    )
    .execute();
}

export async function addDaily(trx: Db, row: TagDailyTable): Promise<void> {
  await trx
    .insertInto('tag_daily')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tag_id', 'day']).doUpdateSet((eb) => ({
        views: eb('tag_daily.views', '+', eb.ref('excluded.views')),
        qr_scans: eb('tag_daily.qr_scans', '+', eb.ref('excluded.qr_scans')),
        direct_visits: eb('tag_daily.direct_visits', '+', eb.ref('excluded.direct_visits')),
        unique_views: eb('tag_daily.unique_views', '+', eb.ref('excluded.unique_views')),
      })),
    )
    .execute();
}

const VISITOR_ROWS_PER_INSERT = 200;

/**
 * Records (tag, bucket, visitor) rows, each once; returns the rows that were new. One
 * multi-row INSERT … ON CONFLICT DO NOTHING RETURNING per chunk, on both databases.
 */
async function addVisitorRows<T extends 'tag_visitor_hours' | 'tag_visitor_days'>(
  trx: Db,
  table: T,
  bucket: T extends 'tag_visitor_hours' ? 'hour' : 'day',
  rows: Array<{ tag_id: string; bucket: string; visitor: string }>,
): Promise<Set<string>> {
  const fresh = new Set<string>();
  for (let i = 0; i < rows.length; i += VISITOR_ROWS_PER_INSERT) {
    const values = rows.slice(i, i + VISITOR_ROWS_PER_INSERT).map((r) => ({ tag_id: r.tag_id, [bucket]: r.bucket, visitor: r.visitor }));
    const inserted = (await trx
      .insertInto(table as 'tag_visitor_days')
      .values(values as never)
      .onConflict((oc) => oc.doNothing())
      .returning(['tag_id', bucket as 'day', 'visitor'])
      .execute()) as Array<Record<string, string>>;
    for (const row of inserted) fresh.add(`${row.tag_id}|${row[bucket]}|${row.visitor}`);
  }
  return fresh;
}

export function addVisitorHours(trx: Db, rows: Array<{ tag_id: string; bucket: string; visitor: string }>) {
  return addVisitorRows(trx, 'tag_visitor_hours', 'hour', rows);
}

/** The returned keys (tag|day|visitor) are the day's new unique views. */
export function addVisitorDays(trx: Db, rows: Array<{ tag_id: string; bucket: string; visitor: string }>) {
  return addVisitorRows(trx, 'tag_visitor_days', 'day', rows);
}

export function findView(db: Db, id: string) {
  return db
    .selectFrom('views')
    .select(['id', 'tag_id', 'occurred_at', 'duration_seconds', 'device', 'country'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Time on page reported by a beacon: applied only when it grows the view's current time. The
 * view row is locked first (a no-op update: a row lock on PostgreSQL, the write lock on SQLite)
 * and its time read under that lock, so concurrent beacons of one view apply one after another
 * and the view counts once in its hour's average. Returns whether the time grew.
 */
export async function growViewDuration(trx: Db, view: { id: string; tag_id: string; hour: string }, seconds: number): Promise<boolean> {
  await trx
    .updateTable('views')
    .set((eb) => ({ duration_seconds: eb.ref('duration_seconds') }))
    .where('id', '=', view.id)
    .execute();
  const current = await trx.selectFrom('views').select('duration_seconds').where('id', '=', view.id).executeTakeFirst();
  if (!current || (current.duration_seconds !== null && seconds <= current.duration_seconds)) return false;
  await setViewDuration(trx, view, current.duration_seconds, seconds);
  return true;
}

/** A view's time on page grew: the raw row and its hour's average both follow. */
export async function setViewDuration(trx: Db, view: { id: string; tag_id: string; hour: string }, previous: number | null, seconds: number) {
  await trx.updateTable('views').set({ duration_seconds: seconds }).where('id', '=', view.id).execute();
  await trx
    .updateTable('tag_hourly')
    .set((eb) => ({
      duration_sum: eb('duration_sum', '+', seconds - (previous ?? 0)),
      duration_count: eb('duration_count', '+', previous === null ? 1 : 0),
    }))
    .where('tag_id', '=', view.tag_id)
    .where('hour', '=', view.hour)
    .execute();
}

export interface Range {
  /** Inclusive ISO timestamp. */
  from: string;
  /** Exclusive ISO timestamp. */
  to: string;
}

export function hourlyRows(db: Db, tagIds: string[], range: Range) {
  return db
    .selectFrom('tag_hourly')
    .select(['tag_id', 'hour', 'views', 'qr_scans', 'direct_visits', 'duration_sum', 'duration_count'])
    .where('tag_id', 'in', tagIds)
    .where('hour', '>=', range.from)
    .where('hour', '<', range.to)
    .execute();
}

/** Distinct visitors of a tag over whole days [from, to): one row per visitor and day makes this exact. */
export async function uniqueVisitors(db: Db, tagId: string, days: { from: string; to: string }): Promise<number> {
  const row = await db
    .selectFrom('tag_visitor_days')
    .select(sql<number | string>`count(distinct visitor)`.as('count'))
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Visitors per hour (each visitor is stored once per hour, so a row count is a unique count). */
export function visitorsPerHour(db: Db, tagId: string, range: Range) {
  return db
    .selectFrom('tag_visitor_hours')
    .select(['hour as bucket', (eb) => eb.fn.countAll<number | string>().as('visitors')])
    .where('tag_id', '=', tagId)
    .where('hour', '>=', range.from)
    .where('hour', '<', range.to)
    .groupBy('hour')
    .execute();
}

/** Visitors per day (each visitor is stored once per day). */
export function visitorsPerDay(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_visitor_days')
    .select(['day as bucket', (eb) => eb.fn.countAll<number | string>().as('visitors')])
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy('day')
    .execute();
}

export function dimensionTotals(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily_dimensions')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy(['dimension', 'value'])
    .execute();
}

export function dailyRowsInScope(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily')
    .select(['day', (eb) => eb.fn.sum<number | string>('views').as('views'), (eb) => eb.fn.sum<number | string>('qr_scans').as('qr_scans'), (eb) => eb.fn.sum<number | string>('unique_views').as('unique_views')])
    .where(inScope(scope))
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy('day')
    .execute();
}

export function topTagsInScope(db: Db, scope: Scope, days: { from: string; to: string }, limit: number) {
  return db
    .selectFrom('tag_daily')
    .innerJoin('tags', 'tags.id', 'tag_daily.tag_id')
    .select(['tags.id', 'tags.title', (eb) => eb.fn.sum<number | string>('tag_daily.views').as('views')])
    .where(inScope(scope, 'tag_daily'))
    .where('tag_daily.day', '>=', days.from)
    .where('tag_daily.day', '<', days.to)
    .groupBy(['tags.id', 'tags.title'])
    .orderBy('views', 'desc')
    .orderBy('tags.id')
    .limit(limit)
    .execute();
}

export async function countViews(db: Db, tagId: string, range: Range, loggedOnly: boolean): Promise<number> {
  let query = db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tag_id', '=', tagId)
    .where('occurred_at', '>=', range.from)
    .where('occurred_at', '<', range.to);
  if (loggedOnly) query = query.where('logged', '=', 1);
  return Number((await query.executeTakeFirstOrThrow()).count);
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

/**
 * One page of views of several tags, oldest first, after the (occurred_at, id) cursor. Exports
 * read page by page: short queries that never hold the database for the whole export.
 */
export function viewsPage(db: Db, tagIds: string[], range: Range, after: { at: string; id: string } | undefined, loggedOnly: boolean, limit: number) {
  let query = db
    .selectFrom('views')
    .selectAll()
    .where('tag_id', 'in', tagIds)
    .where('occurred_at', '>=', range.from)
    .where('occurred_at', '<', range.to);
  if (loggedOnly) query = query.where('logged', '=', 1);
  if (after) query = query.where((eb) => eb.or([eb('occurred_at', '>', after.at), eb.and([eb('occurred_at', '=', after.at), eb('id', '>', after.id)])]));
  return query.orderBy('occurred_at').orderBy('id').limit(limit).execute();
}

/** One page of per tag and day rows (days with views), after the (day, tag_id) cursor. */
export function dailyPage(db: Db, tagIds: string[], days: { from: string; to: string }, after: { day: string; tagId: string } | undefined, limit: number) {
  let query = db
    .selectFrom('tag_daily')
    .select(['day', 'tag_id', 'views', 'unique_views', 'qr_scans', 'direct_visits'])
    .where('tag_id', 'in', tagIds)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .where('views', '>', 0);
  if (after) query = query.where((eb) => eb.or([eb('day', '>', after.day), eb.and([eb('day', '=', after.day), eb('tag_id', '>', after.tagId)])]));
  return query.orderBy('day').orderBy('tag_id').limit(limit).execute();
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

/** Analytics records of a tag go with it. */
export async function deleteTagAnalytics(trx: Db, tagId: string): Promise<void> {
  for (const table of ['views', 'tag_hourly', 'tag_daily_dimensions', 'tag_visitor_hours', 'tag_visitor_days', 'tag_daily'] as const) {
    await trx.deleteFrom(table).where('tag_id', '=', tagId).execute();
  }
}

/**
 * Deletes views and rollups older than `cutoffDay` for accounts on `plan` (personal accounts
 * by their user's plan, organizations by theirs). Returns the raw views deleted.
 */
export async function purgeAnalyticsBefore(db: Db, plan: string, cutoffDay: string): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- shared by the owned tables views and tag_daily
  const onPlan = (eb: any) =>
    eb.or([
      eb.and([eb('organization_id', 'is', null), eb('owner_id', 'in', eb.selectFrom('users').select('id').where('plan', '=', plan))]),
      eb('organization_id', 'in', eb.selectFrom('organizations').select('id').where('plan', '=', plan)),
    ]);
  const cutoffHour = `${cutoffDay}T00:00:00Z`;
  const tagsOnPlan = db.selectFrom('tag_daily').select('tag_id').distinct().where(onPlan);
  await db.deleteFrom('tag_hourly').where('hour', '<', cutoffHour).where('tag_id', 'in', tagsOnPlan).execute();
  await db.deleteFrom('tag_visitor_hours').where('hour', '<', cutoffHour).where('tag_id', 'in', tagsOnPlan).execute();
  await db.deleteFrom('tag_visitor_days').where('day', '<', cutoffDay).where('tag_id', 'in', tagsOnPlan).execute();
  await db.deleteFrom('tag_daily_dimensions').where('day', '<', cutoffDay).where('tag_id', 'in', tagsOnPlan).execute();
  await db.deleteFrom('tag_daily').where('day', '<', cutoffDay).where(onPlan).execute();
  const views = await db.deleteFrom('views').where('occurred_at', '<', `${cutoffDay}T00:00:00.000Z`).where(onPlan).executeTakeFirst();
  return Number(views.numDeletedRows);
}
