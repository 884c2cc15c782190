import type { ServiceContext } from '../../context.js';
import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { validationError } from '../../errors.js';
import { csvField } from '../../lib/csv.js';
import { PLAN_LIMITS, requirePermission, scopeOf, type Actor, type Scope } from '../accounts/index.js';
import { requireTag, tagsInScope } from '../tags/index.js';
import * as repo from './export.repository.js';
import { requireAccessLogging, toLogRecord, toViewRecord } from './analytics.service.js';
import { Calendar, checkTimeZone, hourKey } from './calendar.js';
import { resolvePeriod, type Period } from './period.js';
import { rollUpViews } from './view-rollup.js';

export const CSV_HEADER = 'date,tag_id,tag_title,views,unique_views,qr_scans,direct_visits';
const INCLUDES = ['views', 'logs', 'summary'] as const;
type Include = (typeof INCLUDES)[number];
/**
 * Rows read and written out per step. Between steps the export gives the thread back (the
 * server's one thread, which on SQLite also runs every query), so no step holds other requests
 * up for long: a page of views is read within a window of VIEW_WINDOW views of every tag.
 */
const DAILY_PAGE = 2000;
const VIEW_PAGE = 500;
const VIEW_WINDOW = 2000;

export interface ExportQuery {
  start_date?: string;
  end_date?: string;
  format: 'csv' | 'json';
  include?: string;
  tag_ids?: string;
  timezone?: string;
}

export interface PreparedExport {
  period: Period;
  filename: string;
  contentType: string;
  body: Readable;
}

/** An empty `include` is the default, as if absent; one naming nothing (`,`) is refused. */
function parseInclude(text: string | undefined): Set<Include> {
  const names = (text || 'summary')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (names.length === 0) throw validationError('include', `include must name at least one of ${INCLUDES.join(', ')}`);
  for (const name of names) {
    if (!INCLUDES.includes(name as Include)) throw validationError('include', `include takes ${INCLUDES.join(', ')}`);
  }
  return new Set(names as Include[]);
}

interface Exported {
  tags: Array<{ id: string; title: string; access_logging: number }>;
  /** How their per-day rows are read: by scope (in index order) when every tag is exported. */
  rows: { scope: Scope } | { tagIds: string[] };
}

/**
 * The tags exported: those named (each must be the caller's: 403/404, and with logs included,
 * must have access logging on, as for /logs: 403), else every tag the key reaches.
 */
async function exportedTags(ctx: ServiceContext, actor: Actor, tagIds: string | undefined, withLogs: boolean): Promise<Exported> {
  if (!tagIds) {
    const scope = scopeOf(actor);
    return { tags: await tagsInScope(ctx, scope), rows: { scope } };
  }
  const ids = [
    ...new Set(
      tagIds
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  ];
  if (ids.length === 0) throw validationError('tag_ids', 'tag_ids must name at least one tag');
  const tags = [];
  for (const id of ids) {
    const tag = await requireTag(ctx, actor, id);
    if (withLogs) requireAccessLogging(tag);
    tags.push({ id: tag.id, title: tag.title, access_logging: tag.access_logging });
  }
  return { tags, rows: { tagIds: tags.map((t) => t.id) } };
}

type Count = number | string;

/** A tag's row of a day, as the export writes it. */
function exportRow(
  date: string,
  row: { tag_id: string; views: Count; unique_views: Count; qr_scans: Count; direct_visits: Count },
  titles: Map<string, string>,
) {
  return {
    date,
    tag_id: row.tag_id,
    tag_title: titles.get(row.tag_id) ?? '',
    views: Number(row.views),
    unique_views: Number(row.unique_views),
    qr_scans: Number(row.qr_scans),
    direct_visits: Number(row.direct_visits),
  };
}

/** Per tag and day rows, page by page: in a time zone, a day at a time. */
async function* dailyPages(ctx: ServiceContext, exported: Exported, calendar: Calendar) {
  const titles = new Map(exported.tags.map((t) => [t.id, t.title]));
  if (titles.size === 0) return;
  if (!calendar.utc) {
    yield* zonedDailyPages(ctx, exported, calendar, titles);
    return;
  }
  const period = calendar.period;
  let after: { day: string; tagId: string } | undefined;
  for (;;) {
    const rows = await repo.dailyPage(ctx.db, exported.rows, { from: period.start, to: period.end }, after, DAILY_PAGE);
    yield rows.map((row) => exportRow(row.day, row, titles));
    if (rows.length < DAILY_PAGE) return;
    const last = rows.at(-1)!;
    after = { day: last.day, tagId: last.tag_id };
    await setImmediate();
  }
}

/**
 * Per tag and day rows of the days of a time zone, a day at a time: each day's UTC hours added
 * up per tag (export.repository.ts, zonedDayRows), its distinct visitors those of the UTC day
 * whose noon it holds, as the reports count them.
 */
async function* zonedDailyPages(ctx: ServiceContext, exported: Exported, calendar: Calendar, titles: Map<string, string>) {
  for (const { day, from, to, visitorDay } of calendar.days()) {
    const rows = await repo.zonedDayRows(ctx.db, exported.rows, { from: hourKey(from), to: hourKey(to) }, visitorDay);
    yield rows.map((row) => exportRow(day, row, titles));
    await setImmediate();
  }
}

/**
 * The views of the tags in the period, oldest first, page by page: each page within a window
 * of views of every tag (repo.viewsWindowEnd), so no query reads or sorts more than the window
 * however many views the period holds.
 */
async function* viewPages(ctx: ServiceContext, tagIds: string[], calendar: Calendar, loggedOnly: boolean) {
  if (tagIds.length === 0) return;
  const range = { from: new Date(calendar.from).toISOString(), to: new Date(calendar.to).toISOString() };
  let from: repo.ViewsFrom = { at: range.from };
  for (;;) {
    const windowEnd = await repo.viewsWindowEnd(ctx.db, from, range.to, VIEW_WINDOW);
    const until = windowEnd === undefined ? { before: range.to } : { through: windowEnd };
    const rows = await repo.viewsPage(ctx.db, tagIds, from, until, loggedOnly, VIEW_PAGE);
    if (rows.length > 0) yield rows;
    if (rows.length === VIEW_PAGE) {
      const last = rows.at(-1)!;
      from = { afterView: { at: last.occurred_at, id: last.id } };
    } else if (windowEnd === undefined) return;
    else from = { after: windowEnd };
    await setImmediate();
  }
}

async function* csv(ctx: ServiceContext, exported: Exported, calendar: Calendar) {
  yield `${CSV_HEADER}\n`;
  // Dates, ids and counts never need quoting; titles are quoted once per tag.
  const titles = new Map(exported.tags.map((t) => [t.id, csvField(t.title)]));
  for await (const rows of dailyPages(ctx, exported, calendar)) {
    let chunk = '';
    for (const row of rows) {
      chunk += `${row.date},${row.tag_id},${titles.get(row.tag_id)},${row.views},${row.unique_views},${row.qr_scans},${row.direct_visits}\n`;
    }
    if (chunk) yield chunk;
  }
}

/** A JSON array written a page at a time. */
async function* jsonArray<T>(pages: AsyncIterable<T[]>, map: (item: T) => unknown) {
  let first = true;
  yield '[';
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield (first ? '' : ',') + page.map((item) => JSON.stringify(map(item))).join(',');
    first = false;
  }
  yield ']';
}

async function* json(ctx: ServiceContext, exported: Exported, calendar: Calendar, include: Set<Include>, exportDate: string) {
  const ids = exported.tags.map((t) => t.id);
  const head = { export_date: exportDate, period: calendar.period, timezone: calendar.zone };
  yield `{"success":true,"data":${JSON.stringify(head).slice(0, -1)},"rows":`;
  yield* include.has('summary') ? jsonArray(dailyPages(ctx, exported, calendar), (row) => row) : ['[]'];
  if (include.has('views')) {
    yield ',"views":';
    yield* jsonArray(viewPages(ctx, ids, calendar, false), (view) => ({ tag_id: view.tag_id, ...toViewRecord(view) }));
  }
  if (include.has('logs')) {
    // Of every tag exported, only those logging now show their log records (as /logs does).
    const logging = exported.tags.filter((t) => t.access_logging === 1).map((t) => t.id);
    yield ',"logs":';
    yield* jsonArray(viewPages(ctx, logging, calendar, true), (view) => ({ tag_id: view.tag_id, ...toLogRecord(view, 'detailed') }));
  }
  yield '}}';
}

/**
 * CSV: the spec's header, then one row per tag per day with at least one view (the `include`
 * parameter shapes JSON only). JSON: data.rows, plus data.views and data.logs when included.
 * Both are streamed.
 */
export async function prepareExport(ctx: ServiceContext, actor: Actor, query: ExportQuery): Promise<PreparedExport> {
  requirePermission(actor, 'analytics:read');
  const include = parseInclude(query.include);
  const zone = checkTimeZone(query.timezone);
  const calendar = new Calendar(zone, resolvePeriod(query, ctx.clock, PLAN_LIMITS[actor.plan].analyticsHistoryDays, zone));
  const { period } = calendar;
  const exported = await exportedTags(ctx, actor, query.tag_ids, query.format === 'json' && include.has('logs'));
  await rollUpViews(ctx.db);
  const filename = `tagsvc-analytics-${period.start}-to-${period.end}.${query.format}`;
  const body =
    query.format === 'csv'
      ? Readable.from(csv(ctx, exported, calendar))
      : Readable.from(json(ctx, exported, calendar, include, ctx.clock.now().toISOString()));
  return { period, filename, contentType: query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8', body };
}
