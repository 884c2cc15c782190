import type { Db } from '../../db/database.js';
import type {
  ScopeDailyTable,
  TagDailyDimensionsTable,
  TagDailyTable,
  TagHourlyTable,
  TagMonthlyDimensionsTable,
  TagMonthlyTable,
} from '../../db/schema.js';
import { insertAll } from '../../perf/bulk-insert.js';
import { getOrCreate } from '../../lib/maps.js';
import { eventsInsert, type AnyEventInput, type EventPayloads, type EventType } from '../events/index.js';
import { subscribedEventTypes } from '../webhooks/index.js';
import { lockViewRollup } from '../../db/locks.js';
import * as repo from './analytics.repository.js';
import { dayOf, hourOf, monthOf } from './period.js';
import { transaction } from '../../db/transaction.js';

/** Views rolled up in one transaction: short enough not to hold the database (or SQLite's thread) for long. */
const VIEWS_PER_TRANSACTION = 2000;

/**
 * Rolls the pending views (committed by the page, see view-recorder.ts) into the rollups and
 * writes their tag.viewed / qr.scanned events, in transactions of up to 2,000 views, until
 * none is left. Each view leaves pending_views in the transaction that counts it, so it is
 * counted exactly once, however many processes roll at the same time. Reports call this before
 * reading the rollups, so they include every view committed before they started. Returns how
 * many views were rolled up.
 */
export async function rollUpViews(db: Db): Promise<number> {
  let rolled = 0;
  // Outside a transaction first: the common case, nothing pending, costs one read.
  if (!(await repo.anyPendingView(db))) return 0;
  for (;;) {
    const count = await transaction(db, (trx) => rollUpBatch(trx));
    rolled += count;
    if (count < VIEWS_PER_TRANSACTION) return rolled;
  }
}

/** The same within a transaction the caller holds (a tag's deletion rolls its views up first). */
export async function rollUpViewsIn(trx: Db): Promise<void> {
  while ((await rollUpBatch(trx)) === VIEWS_PER_TRANSACTION);
}

async function rollUpBatch(trx: Db): Promise<number> {
  await lockViewRollup(trx);
  const ids = await repo.claimPendingViews(trx, VIEWS_PER_TRANSACTION);
  if (ids.length === 0) return 0;
  const views = await repo.viewsWithTags(trx, ids);
  if (views.length > 0) await addToRollups(trx, views);
  // A view whose tag is gone was recorded while its tag was being deleted (the page had found
  // it just before): it goes, as the tag's other views did.
  if (views.length < ids.length) {
    const counted = new Set(views.map((view) => view.id));
    await repo.deleteViews(
      trx,
      ids.filter((id) => !counted.has(id)),
    );
  }
  await repo.deletePendingViews(trx, ids);
  return ids.length;
}

type RolledView = Awaited<ReturnType<typeof repo.viewsWithTags>>[number];

async function addToRollups(trx: Db, views: RolledView[]): Promise<void> {
  const hourly = new Map<string, TagHourlyTable>();
  const daily = new Map<string, TagDailyTable>();
  const scopes = new Map<string, ScopeDailyTable>();
  const monthly = new Map<string, TagMonthlyTable>();
  const dimensions = new Map<string, TagDailyDimensionsTable>();
  const monthlyDimensions = new Map<string, TagMonthlyDimensionsTable>();
  for (const view of views) {
    const hour = hourOf(view.occurred_at);
    const day = dayOf(view.occurred_at);
    const month = monthOf(view.occurred_at);
    const scopeId = repo.scopeIdOf(view);
    const scan = view.source === 'qr_scan' ? 1 : 0;
    const direct = view.source === 'direct' ? 1 : 0;
    // A beacon may have reported the time on page before the view was rolled up.
    const timed = view.duration_seconds === null ? 0 : 1;
    const seconds = view.duration_seconds ?? 0;
    const h = getOrCreate(hourly, `${view.tag_id}|${hour}`, () => ({
      tag_id: view.tag_id,
      hour,
      views: 0,
      qr_scans: 0,
      direct_visits: 0,
      duration_sum: 0,
      duration_count: 0,
      unique_visitors: 0,
    }));
    h.views += 1;
    h.qr_scans += scan;
    h.direct_visits += direct;
    h.duration_sum += seconds;
    h.duration_count += timed;
    const d = getOrCreate(daily, `${view.tag_id}|${day}`, () => ({
      tag_id: view.tag_id,
      day,
      environment: view.environment,
      owner_id: view.owner_id,
      organization_id: view.organization_id,
      views: 0,
      qr_scans: 0,
      direct_visits: 0,
      unique_views: 0,
      duration_sum: 0,
      duration_count: 0,
    }));
    d.views += 1;
    d.qr_scans += scan;
    d.direct_visits += direct;
    d.duration_sum += seconds;
    d.duration_count += timed;
    const s = getOrCreate(scopes, `${view.environment}|${scopeId}|${day}`, () => ({
      environment: view.environment,
      scope_id: scopeId,
      day,
      views: 0,
      qr_scans: 0,
    }));
    s.views += 1;
    s.qr_scans += scan;
    getOrCreate(monthly, `${view.tag_id}|${month}`, () => ({
      environment: view.environment,
      scope_id: scopeId,
      month,
      tag_id: view.tag_id,
      views: 0,
    })).views += 1;
    for (const [dimension, value] of [
      ['device', view.device],
      ['country', view.country ?? 'unknown'],
      ['browser', view.browser],
    ] as const) {
      getOrCreate(dimensions, `${view.tag_id}|${day}|${dimension}|${value}`, () => ({
        tag_id: view.tag_id,
        day,
        dimension,
        value,
        views: 0,
      })).views += 1;
      getOrCreate(monthlyDimensions, `${view.tag_id}|${month}|${dimension}|${value}`, () => ({
        tag_id: view.tag_id,
        month,
        dimension,
        value,
        views: 0,
      })).views += 1;
    }
  }
  // The day rows carry their visitors' numbers, where they have one: reports then look up only
  // the open rows' visitors numbered since (openScopeVisitorDays). Read under the rollup lock.
  const dayRows = distinctVisitors(views, dayOf);
  const numbers = await repo.visitorNumbersOf(trx, [...new Set(dayRows.map((row) => row.visitor))]);
  // Then two round trips on PostgreSQL: the visitor rows first (which of them are new decides
  // the unique counts), then everything else.
  const [newHours, newDays] = (await insertAll(trx, [
    repo.visitorHoursInsert(distinctVisitors(views, hourOf)),
    repo.visitorDaysInsert(dayRows.map((row) => ({ ...row, number: numbers.get(row.visitor) ?? null }))),
  ])) as [repo.VisitorRow[], repo.VisitorRow[]];
  for (const row of newHours) hourly.get(`${row.tag_id}|${row.bucket}`)!.unique_visitors += 1;
  for (const row of newDays) daily.get(`${row.tag_id}|${row.bucket}`)!.unique_views += 1;
  await insertAll(trx, [
    repo.rollupInsert('tag_hourly', [...hourly.values()]),
    repo.rollupInsert('tag_daily', [...daily.values()]),
    repo.rollupInsert('scope_daily', [...scopes.values()]),
    repo.rollupInsert('tag_monthly', [...monthly.values()]),
    repo.rollupInsert('tag_daily_dimensions', [...dimensions.values()]),
    repo.rollupInsert('tag_monthly_dimensions', [...monthlyDimensions.values()]),
    eventsInsert(await viewEvents(trx, views)),
  ]);
}

/** Each (tag, bucket, visitor) of the batch once, in key order (the lock order of concurrent writers). */
function distinctVisitors(views: RolledView[], bucketOf: (iso: string) => string) {
  const rows = new Map<string, repo.VisitorRow>();
  for (const view of views) {
    const bucket = bucketOf(view.occurred_at);
    rows.set(`${view.tag_id}|${bucket}|${view.visitor}`, { tag_id: view.tag_id, bucket, visitor: view.visitor });
  }
  return [...rows].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, row]) => row);
}

/**
 * tag.viewed for every view and qr.scanned for every scan — for the scopes where an enabled
 * webhook takes them. The dispatcher would drop the others unsent anyway (it matches events to
 * the webhooks enabled when it dispatches), and most accounts take no view events, so writing
 * and dispatching an event row for each of their views would be pure cost.
 */
async function viewEvents(trx: Db, views: RolledView[]): Promise<AnyEventInput[]> {
  const wanted = new Map<string, Promise<Set<EventType>>>();
  const typesOf = (view: RolledView) =>
    getOrCreate(wanted, `${view.environment}|${repo.scopeIdOf(view)}`, () => subscribedViewEvents(trx, view));
  const events: AnyEventInput[] = [];
  for (const view of views) {
    const types = await typesOf(view);
    if (types.size === 0) continue;
    const data: EventPayloads['tag.viewed' | 'qr.scanned'] = {
      tag: { id: view.tag_id, short_id: view.short_id, title: view.title },
      view: { id: view.id, source: view.source, device: view.device, browser: view.browser, os: view.os, country: view.country },
    };
    const base = {
      environment: view.environment,
      ownerId: view.owner_id,
      organizationId: view.organization_id,
      tagId: view.tag_id,
      data,
      at: view.occurred_at,
    };
    if (types.has('tag.viewed')) events.push({ ...base, type: 'tag.viewed' });
    if (view.source === 'qr_scan' && types.has('qr.scanned')) events.push({ ...base, type: 'qr.scanned' });
  }
  return events;
}

async function subscribedViewEvents(trx: Db, view: RolledView): Promise<Set<EventType>> {
  const types = new Set<EventType>();
  for (const type of await subscribedEventTypes(trx, view)) if (type === 'tag.viewed' || type === 'qr.scanned') types.add(type);
  return types;
}
