import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import type { ScopeDailyTable, TagDailyDimensionsTable, TagDailyTable, TagHourlyTable, TagMonthlyDimensionsTable, TagMonthlyTable, ViewsTable } from '../../db/schema.js';
import { getOrCreate } from '../../lib/maps.js';
import { insertAll } from '../../db/bulk-insert.js';
import { eventsInsert, type EventInput } from '../events/outbox.js';
import * as repo from './analytics.repository.js';

/** What the events of a view need to know about its tag. */
export interface ViewedTag {
  id: string;
  short_id: string;
  title: string;
}

interface Pending {
  view: ViewsTable;
  tag: ViewedTag;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 500;

export const hourOf = (iso: string) => `${iso.slice(0, 13)}:00:00Z`;
export const dayOf = (iso: string) => iso.slice(0, 10);

/**
 * Group commit: views that arrive while a transaction is being written wait for the next one,
 * which writes them all together — raw rows, rollups and tag.viewed / qr.scanned events.
 * record() resolves only after the commit, so a page is never answered for a view that a
 * crash could still lose, and throughput does not pay one transaction per view.
 */
export class ViewRecorder {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  record(view: ViewsTable, tag: ViewedTag): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ view, tag, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  /** Waits for everything queued so far (shutdown). */
  async flush(): Promise<void> {
    await this.writing;
  }

  private async drain(): Promise<void> {
    // Let the requests of this event-loop turn join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.db.transaction().execute((trx) => writeBatch(trx, batch));
        for (const item of batch) item.resolve();
      } catch (error) {
        this.log.error({ err: error, views: batch.length }, 'could not record views');
        for (const item of batch) item.reject(error);
      }
    }
    this.writing = undefined;
  }
}

async function writeBatch(trx: Db, batch: Pending[]): Promise<void> {
  const views = batch.map((p) => p.view);
  const hourly = new Map<string, TagHourlyTable>();
  const daily = new Map<string, TagDailyTable>();
  const scopes = new Map<string, ScopeDailyTable>();
  const monthly = new Map<string, TagMonthlyTable>();
  const dimensions = new Map<string, TagDailyDimensionsTable>();
  const monthlyDimensions = new Map<string, TagMonthlyDimensionsTable>();
  for (const view of views) {
    const hour = hourOf(view.occurred_at);
    const day = dayOf(view.occurred_at);
    const month = `${view.occurred_at.slice(0, 7)}-01`;
    const scopeId = repo.scopeIdOf(view);
    const scan = view.source === 'qr_scan' ? 1 : 0;
    const direct = view.source === 'direct' ? 1 : 0;
    const h = getOrCreate(hourly, `${view.tag_id}|${hour}`, () => ({ tag_id: view.tag_id, hour, views: 0, qr_scans: 0, direct_visits: 0, duration_sum: 0, duration_count: 0, unique_visitors: 0 }));
    h.views += 1;
    h.qr_scans += scan;
    h.direct_visits += direct;
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
    const s = getOrCreate(scopes, `${view.environment}|${scopeId}|${day}`, () => ({ environment: view.environment, scope_id: scopeId, day, views: 0, qr_scans: 0, unique_views: 0 }));
    s.views += 1;
    s.qr_scans += scan;
    getOrCreate(monthly, `${view.tag_id}|${month}`, () => ({ environment: view.environment, scope_id: scopeId, month, tag_id: view.tag_id, views: 0 })).views += 1;
    for (const [dimension, value] of [['device', view.device], ['country', view.country ?? 'unknown'], ['browser', view.browser]] as const) {
      getOrCreate(dimensions, `${view.tag_id}|${day}|${dimension}|${value}`, () => ({ tag_id: view.tag_id, day, dimension, value, views: 0 })).views += 1;
      getOrCreate(monthlyDimensions, `${view.tag_id}|${month}|${dimension}|${value}`, () => ({ tag_id: view.tag_id, month, dimension, value, views: 0 })).views += 1;
    }
  }
  // Two round trips on PostgreSQL: the visitor rows first (which of them are new decides the
  // unique counts), then everything else.
  const [newHours, newDays] = (await insertAll(trx, [repo.visitorHoursInsert(distinctVisitors(views, hourOf)), repo.visitorDaysInsert(distinctVisitors(views, dayOf))])) as [
    repo.VisitorRow[],
    repo.VisitorRow[],
  ];
  for (const row of newHours) hourly.get(`${row.tag_id}|${row.bucket}`)!.unique_visitors += 1;
  for (const row of newDays) {
    const d = daily.get(`${row.tag_id}|${row.bucket}`)!;
    d.unique_views += 1;
    scopes.get(`${d.environment}|${repo.scopeIdOf(d)}|${row.bucket}`)!.unique_views += 1;
  }
  await insertAll(trx, [
    repo.viewsInsert(views),
    repo.rollupInsert('tag_hourly', [...hourly.values()]),
    repo.rollupInsert('tag_daily', [...daily.values()]),
    repo.rollupInsert('scope_daily', [...scopes.values()]),
    repo.rollupInsert('tag_monthly', [...monthly.values()]),
    repo.rollupInsert('tag_daily_dimensions', [...dimensions.values()]),
    repo.rollupInsert('tag_monthly_dimensions', [...monthlyDimensions.values()]),
    eventsInsert(batch.flatMap(({ view, tag }) => viewEvents(view, tag))),
  ]);
}

/** Each (tag, bucket, visitor) of the batch once, in key order (the lock order of concurrent writers). */
function distinctVisitors(views: ViewsTable[], bucketOf: (iso: string) => string) {
  const rows = new Map<string, repo.VisitorRow>();
  for (const view of views) {
    const bucket = bucketOf(view.occurred_at);
    rows.set(`${view.tag_id}|${bucket}|${view.visitor}`, { tag_id: view.tag_id, bucket, visitor: view.visitor });
  }
  return [...rows].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, row]) => row);
}

function viewEvents(view: ViewsTable, tag: ViewedTag): EventInput[] {
  const data = {
    tag: { id: tag.id, short_id: tag.short_id, title: tag.title },
    view: { id: view.id, source: view.source, device: view.device, browser: view.browser, os: view.os, country: view.country },
  };
  const base = { environment: view.environment, ownerId: view.owner_id, organizationId: view.organization_id, tagId: view.tag_id, data, at: view.occurred_at };
  const events: EventInput[] = [{ ...base, type: 'tag.viewed' }];
  if (view.source === 'qr_scan') events.push({ ...base, type: 'qr.scanned' });
  return events;
}
