import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import type { ScopeDailyTable, TagDailyDimensionsTable, TagDailyTable, TagHourlyTable, TagMonthlyDimensionsTable, TagMonthlyTable, ViewsTable } from '../../db/schema.js';
import { getOrCreate } from '../../lib/maps.js';
import { emitMany, type EventInput } from '../events/outbox.js';
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
  await repo.insertViews(trx, views);
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
  for (const key of await repo.addVisitorHours(trx, distinctVisitors(views, hourOf))) {
    const [tagId, hour] = key.split('|');
    hourly.get(`${tagId}|${hour}`)!.unique_visitors += 1;
  }
  for (const key of await repo.addVisitorDays(trx, distinctVisitors(views, dayOf))) {
    const [tagId, day] = key.split('|');
    const d = daily.get(`${tagId}|${day}`)!;
    d.unique_views += 1;
    scopes.get(`${d.environment}|${repo.scopeIdOf(d)}|${day}`)!.unique_views += 1;
  }
  await repo.addToRollup(trx, 'tag_hourly', [...hourly.values()]);
  await repo.addToRollup(trx, 'tag_daily', [...daily.values()]);
  await repo.addToRollup(trx, 'scope_daily', [...scopes.values()]);
  await repo.addToRollup(trx, 'tag_monthly', [...monthly.values()]);
  await repo.addToRollup(trx, 'tag_daily_dimensions', [...dimensions.values()]);
  await repo.addToRollup(trx, 'tag_monthly_dimensions', [...monthlyDimensions.values()]);
  await emitMany(trx, batch.flatMap(({ view, tag }) => viewEvents(view, tag)));
}

/** Each (tag, bucket, visitor) of the batch once. */
function distinctVisitors(views: ViewsTable[], bucketOf: (iso: string) => string) {
  const rows = new Map<string, { tag_id: string; bucket: string; visitor: string }>();
  for (const view of views) {
    const bucket = bucketOf(view.occurred_at);
    rows.set(`${view.tag_id}|${bucket}|${view.visitor}`, { tag_id: view.tag_id, bucket, visitor: view.visitor });
  }
  return [...rows.values()];
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
