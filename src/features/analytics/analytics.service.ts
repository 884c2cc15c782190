import type { ServiceContext } from '../../context.js';
import { setImmediate } from 'node:timers/promises';
import { readSnapshot, type Db } from '../../db/database.js';
import type { Dimension, ViewsTable } from '../../db/schema.js';
import { ApiError, forbidden } from '../../errors.js';
import { getOrCreate } from '../../lib/maps.js';
import { PLAN_LIMITS, requirePermission, scopeOf, type Actor, type Scope } from '../accounts/index.js';
import { countFilesUploaded } from '../files/index.js';
import { countTagsCreated, requireTag } from '../tags/index.js';
import { countInboxViews } from './ingestion.repository.js';
import { cityOf, UNKNOWN } from '../../db/dimensions.js';
import * as repo from './reports.repository.js';
import * as visitorStore from './visitor-sets.repository.js';
import {
  dayMs,
  daysAfterInLastMonth,
  daysOf,
  instantRange,
  periodFor,
  previousPeriodFor,
  splitByMonths,
  type DateQuery,
  type Granularity,
  type Period,
} from './period.js';
import { Calendar, checkTimeZone, hourKey, type ZoneQuery } from './calendar.js';
import { DistinctVisitors, type DecodedSet } from './visitor-sets.js';
import { scopeVisitors } from './scope-visitors.js';
import { closedTagSets } from './tag-visitors.js';
import { rollUpViews } from './view-rollup.js';

export type { DateQuery };

const TOP = 10;

const OTHER = 'other';

type ValueCount = { value: string; views: number };

/**
 * The ten largest named values by count, then the rest of the named ones (`other`) and those
 * that name nothing (`unknown`, the values `isUnknown` picks). Unknowns never take one of the
 * ten places; a value counted 0 (a deleted tag's, taken off its scope's rows) is left out.
 */
function ranked(rows: ValueCount[], isUnknown: (value: string) => boolean) {
  const counted = rows.filter((row) => row.views > 0);
  const named = counted.filter((row) => !isUnknown(row.value)).sort((a, b) => b.views - a.views || a.value.localeCompare(b.value));
  const sum = (part: ValueCount[]) => part.reduce((total, row) => total + row.views, 0);
  return { top: named.slice(0, TOP), other: sum(named.slice(TOP)), unknown: sum(counted.filter((row) => isUnknown(row.value))) };
}

/** The spec's breakdowns (by_country, by_browser): the ten largest, the rest and the unknown summed under `other`. */
function topWithOther(rows: ValueCount[], unknownValue: string): Record<string, number> {
  const { top, other, unknown } = ranked(rows, (value) => value === unknownValue);
  const result: Record<string, number> = Object.fromEntries(top.map((row) => [row.value, row.views]));
  if (other + unknown > 0) result[OTHER] = other + unknown;
  return result;
}

/** The later breakdowns: the ten largest, then `other` and `unknown` apart. */
function topOtherUnknown(rows: ValueCount[], unknownValue = UNKNOWN): Record<string, number> {
  const { top, other, unknown } = ranked(rows, (value) => value === unknownValue);
  const result: Record<string, number> = Object.fromEntries(top.map((row) => [row.value, row.views]));
  if (other > 0) result[OTHER] = other;
  if (unknown > 0) result[UNKNOWN] = unknown;
  return result;
}

/** Cities as `{ city, country, views }`, the ten largest, then `other` and `unknown` as cities of no country. */
function topCities(rows: ValueCount[]) {
  const { top, other, unknown } = ranked(rows, (value) => value === UNKNOWN);
  const cities: Array<{ city: string; country: string | null; views: number }> = top.map((row) => ({
    ...cityOf(row.value),
    views: row.views,
  }));
  if (other > 0) cities.push({ city: OTHER, country: null, views: other });
  if (unknown > 0) cities.push({ city: UNKNOWN, country: null, views: unknown });
  return cities;
}

/** Every breakdown of a report, from its (dimension, value, views) rows. */
function breakdowns(rows: Array<{ dimension: string; value: string; views: number }>) {
  const by = (dimension: Dimension) => rows.filter((row) => row.dimension === dimension);
  const devices = Object.fromEntries(by('device').map((row) => [row.value, row.views]));
  return {
    by_device: { mobile: devices.mobile ?? 0, desktop: devices.desktop ?? 0, tablet: devices.tablet ?? 0 },
    by_country: topWithOther(by('country'), UNKNOWN),
    by_browser: topWithOther(by('browser'), 'Other'),
    by_referrer: topOtherUnknown(by('referrer')),
    by_os: topOtherUnknown(by('os'), 'Other'),
    by_city: topCities(by('city')),
    by_utm_source: topOtherUnknown(by('utm_source')),
    by_utm_medium: topOtherUnknown(by('utm_medium')),
    by_utm_campaign: topOtherUnknown(by('utm_campaign')),
  };
}

/**
 * Distinct visitors of the tag over the period, and per bucket when `bucketOfDay` groups days
 * (weeks, months): the union of the closed months' and days' visitor sets (tag-visitors.ts) and
 * of open days' visitor rows.
 */
async function distinctVisitors(
  ctx: ServiceContext,
  tagId: string,
  period: Period | undefined,
  bucketOfDay?: (day: string) => string,
  extraKeys: readonly string[] = [],
) {
  if (!period) return { total: new Set(extraKeys).size, perBucket: new Map<string, number>() };
  const days = { from: period.start, to: period.end };
  // One snapshot: sealing moves a day's visitors from its open rows into its set.
  const [sets, open] = await readSnapshot(ctx.db, (db) =>
    Promise.all([closedTagSets(db, tagId, period, bucketOfDay), visitorStore.openVisitorDays(db, tagId, days)]),
  );
  const parts = new Map<string, { sets: DecodedSet[]; numbers: number[]; keys: string[] }>();
  const part = (day: string) => getOrCreate(parts, bucketOfDay?.(day) ?? '', () => ({ sets: [], numbers: [], keys: [] }));
  for (const row of sets) part(row.day).sets.push(row.set);
  for (const row of open) {
    if (row.number === null) part(row.day).keys.push(row.visitor);
    else part(row.day).numbers.push(Number(row.number));
  }
  const total = new DistinctVisitors();
  for (const key of extraKeys) total.addKey(key);
  const bucket = new DistinctVisitors();
  const perBucket = new Map<string, number>();
  for (const [key, { sets, numbers, keys }] of parts) {
    for (const counter of bucketOfDay ? [total, bucket] : [total]) {
      for (const set of sets) counter.addDecoded(set);
      for (const n of numbers) counter.addNumber(n);
      for (const k of keys) counter.addKey(k);
    }
    if (bucketOfDay) {
      perBucket.set(key, bucket.size);
      bucket.clear();
    }
  }
  const size = total.size;
  total.release();
  bucket.release();
  return { total: size, perBucket };
}

type DimensionRows = Promise<Array<{ dimension: Dimension; value: string; views: number | string }>>;

/**
 * Views per dimension and value over the period, from the monthly rows of its whole months, the
 * daily rows of the days around them (see splitByMonths) and `extra` rows (the stored views of
 * the hours at the ends of a period in a time zone).
 */
async function dimensionTotals(
  period: Period | undefined,
  throughLastMonth: boolean,
  monthly: (months: repo.Range) => DimensionRows,
  daily: (days: repo.Range) => DimensionRows,
  extra: DimensionRows[] = [],
) {
  const { months, days } = period ? splitByMonths(period, throughLastMonth) : { months: undefined, days: [] };
  const totals = new Map<string, { dimension: Dimension; value: string; views: number }>();
  for (const rows of await Promise.all([...(months ? [monthly(months)] : []), ...days.map(daily), ...extra])) {
    for (const row of rows)
      getOrCreate(totals, `${row.dimension}|${row.value}`, () => ({ dimension: row.dimension, value: row.value, views: 0 })).views +=
        Number(row.views);
  }
  return [...totals.values()];
}

/**
 * Whether the period's last month is read from monthly rows (splitByMonths): `hasDays` finds no
 * rows on its days after the period (daysAfterInLastMonth).
 */
async function readsThroughLastMonth(period: Period | undefined, hasDays: (days: repo.Range) => Promise<boolean>) {
  const after = period && daysAfterInLastMonth(period);
  return after !== undefined && !(await hasDays(after));
}

/** A tag's breakdowns over a calendar's period: its whole UTC days from the rollups, the hours around them from its views. */
async function tagDimensionTotals(ctx: ServiceContext, tagId: string, calendar: Calendar) {
  const { days, edges } = calendar.wholeDays;
  return dimensionTotals(
    days,
    await readsThroughLastMonth(days, (range) => repo.tagHasDays(ctx.db, tagId, range)),
    (months) => repo.monthlyDimensionTotals(ctx.db, tagId, months),
    (range) => repo.dailyDimensionTotals(ctx.db, tagId, range),
    edges.map((range) => repo.viewDimensionTotals(ctx.db, tagId, range)),
  );
}

/**
 * A tag's count rows over a calendar's period, each with the instant (ms) its hour or day
 * starts: its days' rows in UTC, else its hours' (a local day is made of UTC hours).
 */
async function tagCountRows(ctx: ServiceContext, tagId: string, calendar: Calendar, hourly: boolean) {
  if (hourly || !calendar.utc) {
    const rows = await repo.hourlyRows(ctx.db, tagId, { from: hourKey(calendar.from), to: hourKey(calendar.to) });
    return rows.map((row) => ({ ...row, start: Date.parse(row.bucket) }));
  }
  const rows = await repo.dailyRows(ctx.db, tagId, { from: calendar.period.start, to: calendar.period.end });
  return rows.map((row) => ({ ...row, start: dayMs(row.bucket) }));
}

/** The rollup rows a summary adds up (tag_hourly or tag_daily). */
type CountRow = {
  views: number | string;
  qr_scans: number | string;
  direct_visits: number | string;
  duration_sum: number | string;
  duration_count: number | string;
  bot_views: number | string;
};

/** A tag report's summary of its rows and its distinct visitors. */
function summarize(rows: CountRow[], uniqueVisitors: number) {
  const summary = { total_views: 0, unique_views: uniqueVisitors, qr_scans: 0, direct_visits: 0, average_time_seconds: 0, bot_views: 0 };
  let durationSum = 0;
  let durationCount = 0;
  for (const row of rows) {
    summary.total_views += Number(row.views);
    summary.qr_scans += Number(row.qr_scans);
    summary.direct_visits += Number(row.direct_visits);
    summary.bot_views += Number(row.bot_views);
    durationSum += Number(row.duration_sum);
    durationCount += Number(row.duration_count);
  }
  summary.average_time_seconds = durationCount > 0 ? Math.round(durationSum / durationCount) : 0;
  return summary;
}

/** What `compare` adds to a report. */
export interface Comparison {
  compare?: 'previous';
}

/**
 * The per cent change of each figure from its previous value, to one decimal; null where the
 * previous value is 0 (no change can be told from nothing).
 */
function changeOf<K extends string>(current: Record<K, number>, previous: Record<K, number>): Record<K, number | null> {
  const change = {} as Record<K, number | null>;
  for (const key of Object.keys(current) as K[]) {
    const before = previous[key];
    change[key] = before === 0 ? null : Math.round(((current[key] - before) / before) * 1000) / 10;
  }
  return change;
}

/**
 * A tag's distinct visitors over a calendar's period, exactly: its whole UTC days' visitors, and
 * those of the stored views of the hours around them.
 */
async function tagVisitors(ctx: ServiceContext, tagId: string, calendar: Calendar): Promise<number> {
  const { days, edges } = calendar.wholeDays;
  const keys = (await Promise.all(edges.map((range) => repo.viewVisitors(ctx.db, tagId, range)))).flat();
  return (await distinctVisitors(ctx, tagId, days, undefined, keys)).total;
}

/**
 * A tag's summary over a calendar's period: the previous period's figures of compare=previous.
 * A tag is often younger than the period before: one probe tells it had no rollup row then,
 * and spares the reads of its rows and visitor sets.
 */
async function tagSummary(ctx: ServiceContext, tagId: string, calendar: Calendar) {
  if (!(await repo.tagHasDays(ctx.db, tagId, calendar.utcDays))) return summarize([], 0);
  const [rows, visitors] = await Promise.all([tagCountRows(ctx, tagId, calendar, false), tagVisitors(ctx, tagId, calendar)]);
  return summarize(rows, visitors);
}

export async function tagReport(
  ctx: ServiceContext,
  actor: Actor,
  { id: tagId, ...query }: { id: string } & DateQuery & Comparison & ZoneQuery & { granularity: Granularity },
) {
  requirePermission(actor, 'analytics:read');
  const zone = checkTimeZone(query.timezone);
  // Reports count every view answered before they start: the inbox is ingested first, and the
  // bot requests counted in memory are added.
  const [tag] = await Promise.all([requireTag(ctx, actor, tagId), rollUpViews(ctx.db), ctx.botViews.flush()]);
  const calendar = new Calendar(zone, periodFor(ctx, actor, query, zone));
  const { granularity } = query;
  const buckets = calendar.buckets(granularity);
  // An hour counts its own distinct visitors, as does a UTC day; other buckets are unions of days.
  const rowVisitors = granularity === 'hour' || (granularity === 'day' && calendar.utc);
  const previous = query.compare === 'previous' ? new Calendar(zone, previousPeriodFor(ctx, actor, calendar.period, zone)) : undefined;
  const [rows, visitors, bucketVisitors, dimensions, previousSummary] = await Promise.all([
    tagCountRows(ctx, tag.id, calendar, granularity === 'hour'),
    tagVisitors(ctx, tag.id, calendar),
    rowVisitors ? undefined : distinctVisitors(ctx, tag.id, calendar.visitorDays, (day) => calendar.bucketOfVisitorDay(day, granularity)),
    tagDimensionTotals(ctx, tag.id, calendar),
    previous && tagSummary(ctx, tag.id, previous),
  ]);

  const summary = summarize(rows, visitors);
  const series = new Map(buckets.map((b) => [b, { views: 0, visitors: bucketVisitors?.perBucket.get(b) ?? 0 }]));
  for (const row of rows) {
    const bucket = series.get(calendar.bucketOfHour(row.start, granularity))!;
    bucket.views += Number(row.views);
    if (rowVisitors) bucket.visitors += Number(row.unique_views);
  }

  return {
    tag_id: tag.id,
    period: calendar.period,
    timezone: zone,
    summary,
    ...(previous && previousSummary
      ? { previous: { period: previous.period, summary: previousSummary }, change: changeOf(summary, previousSummary) }
      : {}),
    ...breakdowns(dimensions),
    timeseries: [...series].map(([date, bucket]) => ({ date, views: bucket.views, unique: bucket.visitors })),
  };
}

/**
 * The views of each of `tag_ids` over the period (by default the last 30 days), in one grouped
 * query, by tag id: 0 for a tag without any, and for an id the actor does not reach (its views
 * are never read). A list of tags shows them beside each tag.
 */
export async function viewsOfTags(
  ctx: ServiceContext,
  actor: Actor,
  { tag_ids: tagIds, ...query }: { tag_ids: readonly string[] } & DateQuery,
) {
  const period = periodFor(ctx, actor, query);
  const views = new Map(tagIds.map((id) => [id, 0]));
  if (tagIds.length === 0) return { period, views };
  // Like every report, they count every view answered before: the inbox is ingested first.
  await rollUpViews(ctx.db);
  for (const row of await repo.dailyViewsOfTags(ctx.db, scopeOf(actor), tagIds, { from: period.start, to: period.end })) {
    views.set(row.tag_id, Number(row.views));
  }
  return { period, views };
}

/** Index entries one count query steps over: a few milliseconds of the thread. */
const COUNT_CHUNK = 100_000;

/**
 * A tag's views (or logged views) in the range, counted in chunks of COUNT_CHUNK index entries
 * with the thread given back between them: one count of a tag's millions of views would hold
 * the server (on SQLite, the thread that answers every request) for as long as it takes.
 */
async function countTagViews(ctx: ServiceContext, tagId: string, range: { from: string; to: string }, loggedOnly: boolean) {
  let total = 0;
  let from: repo.InstantFrom = { at: range.from };
  const until = { before: range.to };
  for (;;) {
    const next = await repo.tagViewAfter(ctx.db, tagId, from, until, loggedOnly, COUNT_CHUNK);
    if (next === undefined) return total + (await repo.countViews(ctx.db, tagId, from, until, loggedOnly));
    if ('at' in from && next === from.at) {
      // More than a chunk of views at one instant: they are counted together, and passed.
      total += await repo.countViews(ctx.db, tagId, from, { through: next }, loggedOnly);
      from = { after: next };
    } else {
      total += await repo.countViews(ctx.db, tagId, from, { before: next }, loggedOnly);
      from = { at: next };
    }
    await setImmediate();
  }
}

/** Views answered but not yet ingested (metrics). */
export function pendingViewCount(db: Db): Promise<number> {
  return countInboxViews(db);
}

export function toViewRecord(view: ViewsTable) {
  return {
    id: view.id,
    timestamp: view.occurred_at,
    source: view.source,
    device: view.device,
    browser: view.browser,
    os: view.os,
    country: view.country,
    region: view.region,
    duration_seconds: view.duration_seconds,
    utm_source: view.utm_source,
    utm_medium: view.utm_medium,
    utm_campaign: view.utm_campaign,
  };
}

export async function listTagViews(
  ctx: ServiceContext,
  actor: Actor,
  { id: tagId, ...query }: { id: string } & DateQuery & { limit: number; offset: number },
) {
  requirePermission(actor, 'analytics:read');
  const [tag] = await Promise.all([requireTag(ctx, actor, tagId), rollUpViews(ctx.db)]);
  const period = periodFor(ctx, actor, query);
  const range = instantRange(period);
  const [total, rows] = await Promise.all([
    countTagViews(ctx, tag.id, range, false),
    repo.listViews(ctx.db, tag.id, range, { limit: query.limit, offset: query.offset, loggedOnly: false }),
  ]);
  return { total, views: rows.map(toViewRecord) };
}

export type LogLevel = 'basic' | 'detailed';

export function toLogRecord(view: ViewsTable, level: LogLevel) {
  if (level === 'basic') {
    return {
      id: view.id,
      timestamp: view.occurred_at,
      event: 'view',
      source: view.source,
      device: { type: view.device },
      location: { country: view.country },
      duration_seconds: view.duration_seconds,
    };
  }
  return {
    id: view.id,
    timestamp: view.occurred_at,
    event: 'view',
    source: view.source,
    ip_address: view.ip_masked,
    user_agent: view.user_agent,
    device: { type: view.device, os: view.os, browser: view.browser },
    location: { country: view.country, region: view.region, city: view.city },
    referrer: view.referrer,
    duration_seconds: view.duration_seconds,
    utm_source: view.utm_source,
    utm_medium: view.utm_medium,
    utm_campaign: view.utm_campaign,
  };
}

/** Log records are shown only while the tag's access logging is on (403 analytics_not_enabled). */
export function requireAccessLogging(tag: { id: string; access_logging: number }): void {
  if (tag.access_logging !== 1) {
    throw new ApiError(
      'analytics_not_enabled',
      `Access logging is not enabled for tag ${tag.id}; turn on access_logging with PUT /v1/tags/{id}`,
    );
  }
}

export async function listTagLogs(
  ctx: ServiceContext,
  actor: Actor,
  { id: tagId, ...query }: { id: string } & DateQuery & { limit: number; offset: number; level: LogLevel },
) {
  requirePermission(actor, 'analytics:read');
  const [tag] = await Promise.all([requireTag(ctx, actor, tagId), rollUpViews(ctx.db)]);
  // A malformed request is refused as such (400) before the tag's state is (403).
  const period = periodFor(ctx, actor, query);
  requireAccessLogging(tag);
  const range = instantRange(period);
  const [total, rows] = await Promise.all([
    countTagViews(ctx, tag.id, range, true),
    repo.listViews(ctx.db, tag.id, range, { limit: query.limit, offset: query.offset, loggedOnly: true }),
  ]);
  return { total, logs: rows.map((row) => toLogRecord(row, query.level)) };
}

/**
 * The most viewed tags of a calendar's period: its whole UTC days from the monthly and daily
 * rollups (see splitByMonths), the hours at its ends from the hourly ones.
 */
async function topTags(ctx: ServiceContext, scope: Scope, calendar: Calendar, throughLastMonth: boolean) {
  const { days: whole, edges } = calendar.wholeDays;
  const { months, days } = whole ? splitByMonths(whole, throughLastMonth) : { months: undefined, days: [] };
  const parts = [
    ...(months ? [repo.monthlyTagViews(ctx.db, scope, months)] : []),
    ...days.map((range) => repo.dailyTagViews(ctx.db, scope, range)),
    ...edges.map((range) =>
      repo.hourlyTagViews(ctx.db, scope, { from: hourKey(Date.parse(range.from)), to: hourKey(Date.parse(range.to)) }),
    ),
  ];
  const views = new Map<string, number>();
  for (const rows of await Promise.all(parts)) {
    for (const row of rows) views.set(row.tag_id, (views.get(row.tag_id) ?? 0) + Number(row.views));
  }
  // A tag only bots requested has rows of no views: it is no top tag.
  const top = [...views]
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP);
  const titles = new Map(
    (
      await repo.tagTitles(
        ctx.db,
        top.map(([id]) => id),
      )
    ).map((t) => [t.id, t.title]),
  );
  return top.filter(([id]) => titles.has(id)).map(([id, count]) => ({ id, title: titles.get(id)!, views: count }));
}

/** The longest history any plan keeps, and a year ahead: the overview's longest daily series. */
const OVERVIEW_MAX_DAYS = Math.max(...Object.values(PLAN_LIMITS).map((limits) => limits.analyticsHistoryDays)) + 366;

/**
 * A scope's count rows over a calendar's period, each with its local day: its days' rows
 * (scope_daily) in UTC, else its hours' (scope_hourly), a local day being made of UTC hours.
 */
async function scopeCountRows(ctx: ServiceContext, scope: Scope, calendar: Calendar) {
  if (calendar.utc) return repo.scopeDailyRows(ctx.db, scope, { from: calendar.period.start, to: calendar.period.end });
  const rows = await repo.scopeHourlyRows(ctx.db, scope, { from: hourKey(calendar.from), to: hourKey(calendar.to) });
  return rows.map((row) => ({ ...row, day: calendar.dayOfHour(Date.parse(row.hour)) }));
}

/** The overview's totals over a calendar's period, and its rows by local day. */
async function overviewTotals(ctx: ServiceContext, scope: Scope, calendar: Calendar) {
  const range = { from: new Date(calendar.from).toISOString(), to: new Date(calendar.to).toISOString() };
  const [daily, uniqueVisitors, tagsCreated, filesUploaded] = await Promise.all([
    scopeCountRows(ctx, scope, calendar),
    scopeVisitors(ctx.db, scope, calendar.visitorDays),
    countTagsCreated(ctx, scope, range),
    countFilesUploaded(ctx, scope, range),
  ]);
  const totals = {
    views: 0,
    unique_views: uniqueVisitors,
    qr_scans: 0,
    tags_created: tagsCreated,
    files_uploaded: filesUploaded,
    bot_views: 0,
  };
  for (const row of daily) {
    totals.views += Number(row.views);
    totals.qr_scans += Number(row.qr_scans);
    totals.bot_views += Number(row.bot_views);
  }
  return { totals, daily };
}

export async function overview(ctx: ServiceContext, actor: Actor, query: DateQuery & Comparison & ZoneQuery) {
  requirePermission(actor, 'analytics:read');
  const zone = checkTimeZone(query.timezone);
  const scope = scopeOf(actor);
  const period = periodFor(ctx, actor, query, zone);
  const days = daysOf(period, OVERVIEW_MAX_DAYS);
  const calendar = new Calendar(zone, period);
  const previous = query.compare === 'previous' ? new Calendar(zone, previousPeriodFor(ctx, actor, period, zone)) : undefined;
  const { days: wholeDays, edges } = calendar.wholeDays;
  await Promise.all([rollUpViews(ctx.db), ctx.botViews.flush()]);
  const throughLastMonth = readsThroughLastMonth(wholeDays, (range) => repo.scopeHasDays(ctx.db, scope, range));
  const [{ totals, daily }, top, dimensions, previousTotals] = await Promise.all([
    overviewTotals(ctx, scope, calendar),
    throughLastMonth.then((through) => topTags(ctx, scope, calendar, through)),
    throughLastMonth.then((through) =>
      dimensionTotals(
        wholeDays,
        through,
        (months) => repo.scopeMonthlyDimensionTotals(ctx.db, scope, months),
        (range) => repo.scopeDailyDimensionTotals(ctx.db, scope, range),
        edges.map((range) => repo.scopeViewDimensionTotals(ctx.db, scope, range)),
      ),
    ),
    previous && overviewTotals(ctx, scope, previous),
  ]);
  const byDay = new Map(days.map((day) => [day, { views: 0, scans: 0 }]));
  for (const row of daily) {
    const day = byDay.get(row.day);
    if (day) {
      day.views += Number(row.views);
      day.scans += Number(row.qr_scans);
    }
  }
  return {
    period,
    timezone: zone,
    totals,
    ...(previous && previousTotals
      ? { previous: { period: previous.period, totals: previousTotals.totals }, change: changeOf(totals, previousTotals.totals) }
      : {}),
    top_tags: top,
    by_day: [...byDay].map(([date, d]) => ({ date, views: d.views, scans: d.scans })),
    by_referrer: topOtherUnknown(dimensions.filter((row) => row.dimension === 'referrer')),
    by_utm_source: topOtherUnknown(dimensions.filter((row) => row.dimension === 'utm_source')),
  };
}

export async function realtime(ctx: ServiceContext, actor: Actor, { id: tagId }: { id: string }) {
  requirePermission(actor, 'analytics:read');
  const [tag] = await Promise.all([requireTag(ctx, actor, tagId), rollUpViews(ctx.db)]);
  if (!PLAN_LIMITS[actor.plan].realtimeAnalytics) throw forbidden('Real-time analytics require the Enterprise plan');
  const now = ctx.clock.now().getTime();
  const [sessions, lastHour, lastDay] = await Promise.all([
    ctx.presence.active(tag.id, now),
    repo.countViewsSince(ctx.db, tag.id, new Date(now - 3_600_000).toISOString()),
    repo.countViewsSince(ctx.db, tag.id, new Date(now - 86_400_000).toISOString()),
  ]);
  return {
    current_viewers: sessions.length,
    views_last_hour: lastHour,
    views_last_24h: lastDay,
    active_sessions: sessions.map((s) => ({ started_at: s.started_at, device: s.device, country: s.country })),
  };
}
