import type { ServiceContext } from '../../context.js';
import { ApiError, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { offsetAt } from '../../lib/zoned-time.js';
import { PLAN_LIMITS, type Actor } from '../accounts/index.js';

/**
 * A reporting period of whole UTC days, half-open: from the start of `start` to the start of
 * `end`. Defaults to the last 30 days up to and including today. A start older than the
 * plan's history is moved up to the oldest kept day.
 */
export interface Period {
  /** First day, YYYY-MM-DD (after the history clamp). */
  start: string;
  /** First day after the period, YYYY-MM-DD. */
  end: string;
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The hour and the day an ISO timestamp falls in: the rollups' buckets. */
export const hourOf = (iso: string) => `${iso.slice(0, 13)}:00:00Z`;
export const dayOf = (iso: string) => iso.slice(0, 10);
/** The month a day or an ISO timestamp falls in, as rollups key it: its first day. */
export const monthOf = (iso: string) => `${iso.slice(0, 7)}-01`;
export const toDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayMs = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

function parseDay(value: string, field: string): number {
  const ms = DATE.test(value) ? dayMs(value) : NaN;
  if (Number.isNaN(ms) || toDay(ms) !== value) throw validationError(field, `${field} must be a date as YYYY-MM-DD`);
  return ms;
}

/** Today in `zone` (UTC, or an IANA name the runtime knows), as the milliseconds of its date. */
function todayMs(clock: Clock, zone: string): number {
  const now = clock.now().getTime();
  return dayMs(toDay(zone === 'UTC' ? now : now + offsetAt(zone, now)));
}

/** The oldest day a plan of `historyDays` keeps, as milliseconds. */
function oldestKeptMs(clock: Clock, historyDays: number, zone: string): number {
  return todayMs(clock, zone) - (historyDays - 1) * DAY_MS;
}

/** The period of a report's dates, in the days of `zone` (default UTC), within a history of `historyDays`. */
export function resolvePeriod(query: { start_date?: string; end_date?: string }, clock: Clock, historyDays: number, zone = 'UTC'): Period {
  const today = todayMs(clock, zone);
  const endMs = query.end_date !== undefined ? parseDay(query.end_date, 'end_date') : today + DAY_MS;
  const startMs = query.start_date !== undefined ? parseDay(query.start_date, 'start_date') : endMs - 30 * DAY_MS;
  if (endMs <= startMs)
    throw new ApiError('invalid_date_range', 'end_date must be after start_date (the period is [start_date, end_date))');
  const oldestKept = oldestKeptMs(clock, historyDays, zone);
  if (endMs <= oldestKept) {
    throw new ApiError(
      'invalid_date_range',
      `The period ends before ${toDay(oldestKept)}, the oldest day your plan's ${historyDays}-day history keeps`,
    );
  }
  return { start: toDay(Math.max(startMs, oldestKept)), end: toDay(endMs) };
}

/** The period parameters of every report. */
export interface DateQuery {
  start_date?: string;
  end_date?: string;
}

/** The period a report of `actor`'s covers: resolvePeriod within the history of the actor's plan. */
export function periodFor(ctx: ServiceContext, actor: Actor, query: DateQuery, zone = 'UTC'): Period {
  return resolvePeriod(query, ctx.clock, PLAN_LIMITS[actor.plan].analyticsHistoryDays, zone);
}

/**
 * The period of the same length just before `period` (compare=previous), within the history of
 * the actor's plan: shorter when it would start before the oldest kept day, and empty (start =
 * end) when it would end before it.
 */
export function previousPeriodFor(ctx: ServiceContext, actor: Actor, period: Period, zone = 'UTC'): Period {
  const startMs = dayMs(period.start);
  const oldestKept = oldestKeptMs(ctx.clock, PLAN_LIMITS[actor.plan].analyticsHistoryDays, zone);
  const from = Math.min(Math.max(startMs - (dayMs(period.end) - startMs), oldestKept), startMs);
  return { start: toDay(from), end: period.start };
}

/** Boundaries as raw views store timestamps (ISO with milliseconds). */
export function instantRange(period: Period) {
  return { from: `${period.start}T00:00:00.000Z`, to: `${period.end}T00:00:00.000Z` };
}

export type Granularity = 'hour' | 'day' | 'week' | 'month';
export const MAX_BUCKETS = 1000;

/** The bucket an hour key (YYYY-MM-DDTHH:00:00Z) falls in. */
export function bucketOf(hour: string, granularity: Granularity): string {
  switch (granularity) {
    case 'hour':
      return hour;
    case 'day':
      return hour.slice(0, 10);
    case 'week': {
      // ISO weeks start on Monday.
      const ms = dayMs(hour.slice(0, 10));
      const weekday = (new Date(ms).getUTCDay() + 6) % 7;
      return toDay(ms - weekday * DAY_MS);
    }
    case 'month':
      return monthOf(hour);
  }
}

/**
 * Every bucket the period touches, in order, so the series can be zero-filled; undefined when
 * there are more than `max` (the caller knows which parameter to blame).
 */
function bucketsUpTo(period: Period, granularity: Granularity, max: number): string[] | undefined {
  const buckets: string[] = [];
  const step = granularity === 'hour' ? 3_600_000 : DAY_MS;
  const endMs = dayMs(period.end);
  for (let ms = dayMs(period.start); ms < endMs; ms += step) {
    const key =
      granularity === 'hour' ? `${new Date(ms).toISOString().slice(0, 13)}:00:00Z` : bucketOf(`${toDay(ms)}T00:00:00Z`, granularity);
    if (buckets.at(-1) !== key) buckets.push(key);
    if (buckets.length > max) return undefined;
  }
  return buckets;
}

/**
 * The overview's days. It has no granularity: its series is daily over any period a plan keeps
 * (Enterprise: 1,095 days), so its bound is the caller's, and past it the period is too long.
 */
export function daysOf(period: Period, maxDays: number): string[] {
  const days = bucketsUpTo(period, 'day', maxDays);
  if (!days) throw validationError('end_date', `the overview covers at most ${maxDays} days; choose an earlier end_date`);
  return days;
}

/** The first day of the month after `day`'s. */
export function monthAfter(day: string): string {
  const next = new Date(`${monthOf(day)}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next.toISOString().slice(0, 10);
}

/** The first day of the month after `day`'s, or `day` itself when it is a first. */
function monthStartFrom(day: string): string {
  return day.endsWith('-01') ? day : monthAfter(day);
}

/**
 * The days after the period in the month it ends in, when the period holds that month's first
 * day: if the rollups have none of them, that month's monthly rows count only days of the period
 * (splitByMonths' `throughLastMonth`). Only the last month can be taken so: retention deletes
 * a month's first days and keeps its monthly rows.
 */
export function daysAfterInLastMonth(period: Period): { from: string; to: string } | undefined {
  const lastMonth = monthOf(period.end);
  if (lastMonth === period.end || lastMonth < period.start) return undefined;
  return { from: period.end, to: monthAfter(lastMonth) };
}

/**
 * The period as the whole months inside it (read from monthly rollups) and the days before and
 * after them (from daily ones): a year reads about 13 rows a key instead of 365. With
 * `throughLastMonth` (the days after the period in its last month hold no rows, see
 * daysAfterInLastMonth), that month is read as a whole one: this month's report, the one asked
 * most, then reads no daily rows.
 */
export function splitByMonths(
  period: Period,
  throughLastMonth = false,
): { months?: { from: string; to: string }; days: Array<{ from: string; to: string }> } {
  const firstMonth = monthStartFrom(period.start);
  const after = throughLastMonth ? daysAfterInLastMonth(period) : undefined;
  const endMonth = after ? after.to : monthOf(period.end);
  if (firstMonth >= endMonth) return { days: [{ from: period.start, to: period.end }] };
  const days = [
    { from: period.start, to: firstMonth },
    { from: endMonth, to: period.end },
  ].filter((range) => range.from < range.to);
  return { months: { from: firstMonth, to: endMonth }, days };
}

/** The first days of the months in [from, to), both first days. */
export function monthsIn(months: { from: string; to: string }): string[] {
  const firsts: string[] = [];
  for (let month = months.from; month < months.to; month = monthAfter(month)) firsts.push(month);
  return firsts;
}

/** The period's days outside the given whole months of it (first days, ascending), as ranges. */
export function daysOutsideMonths(period: Period, months: readonly string[]): Array<{ from: string; to: string }> {
  const ranges: Array<{ from: string; to: string }> = [];
  let from = period.start;
  for (const month of months) {
    if (from < month) ranges.push({ from, to: month });
    from = monthAfter(month);
  }
  if (from < period.end) ranges.push({ from, to: period.end });
  return ranges;
}

/** The last day of `day`'s month. */
export const lastDayOfMonth = (day: string): string => toDay(dayMs(monthAfter(day)) - DAY_MS);
