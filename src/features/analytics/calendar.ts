import { validationError } from '../../errors.js';
import { canonicalTimeZone, instantOfWallTime, offsetAt } from '../../lib/zoned-time.js';
import { bucketOf, dayMs, MAX_BUCKETS, toDay, type Granularity, type Period } from './period.js';

export const UTC = 'UTC';
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A report's `timezone` parameter. */
export interface ZoneQuery {
  timezone?: string;
}

/** A report's `timezone`: an IANA name the runtime knows, as it spells it; UTC when none is given. */
export function checkTimeZone(value: string | undefined): string {
  if (value === undefined || value === '') return UTC;
  const zone = canonicalTimeZone(value);
  if (!zone)
    throw validationError(
      'timezone',
      'timezone must be an IANA time zone name the server knows, such as Europe/Berlin or America/New_York',
    );
  return zone;
}

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
const ceilDay = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS;
const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
/** An instant as rollups key its hour: YYYY-MM-DDTHH:00:00Z. */
export const hourKey = (ms: number) => `${new Date(ms).toISOString().slice(0, 13)}:00:00Z`;

/**
 * A period's days as a time zone has them. The rollups count by UTC hour (and day and month):
 *
 * - The period runs from the hour in which local midnight of its first day falls to that of the
 *   day after its last. In a zone whose offset is a whole number of hours that is exactly its
 *   days; in one that is not (India +05:30, Nepal +05:45, Newfoundland −03:30), each day starts
 *   at the top of the hour local midnight falls in: up to 45 minutes early.
 * - Views, scans, direct visits, time on page and the breakdowns are added up from the hours of
 *   the period, so they are exact; an hour belongs to the local day in which it ends.
 * - Distinct visitors are kept per UTC day (visitor sets): a UTC day's visitors count in the
 *   local day that holds its noon. In UTC that is the day itself; elsewhere a visitor seen late
 *   in the evening may count in the day before or after the one their view is in.
 */
export class Calendar {
  /** [from, to) as instants (ms). */
  readonly from: number;
  readonly to: number;
  /** Offsets (ms) from instants on, ascending by instant: the zone's changes within the period. */
  private readonly offsets: Array<{ since: number; offset: number }> = [];

  constructor(
    readonly zone: string,
    readonly period: Period,
  ) {
    this.from = this.midnight(period.start);
    this.to = this.midnight(period.end);
    if (zone === UTC) return;
    // The offset at each UTC midnight around the period; where two differ, the hour it changed.
    let previous = { at: floorDay(this.from) - DAY_MS, offset: offsetAt(zone, floorDay(this.from) - DAY_MS) };
    this.offsets.push({ since: -Infinity, offset: previous.offset });
    for (let at = previous.at + DAY_MS; at <= this.to + DAY_MS; at += DAY_MS) {
      const offset = offsetAt(zone, at);
      if (offset !== previous.offset) {
        let low = previous.at;
        let high = at;
        while (high - low > HOUR_MS) {
          const middle = floorHour((low + high) / 2);
          if (offsetAt(zone, middle) === previous.offset) low = middle;
          else high = middle;
        }
        this.offsets.push({ since: high, offset });
      }
      previous = { at, offset };
    }
  }

  get utc(): boolean {
    return this.zone === UTC;
  }

  /** The instant local midnight of `day` falls in, to the hour. */
  private midnight(day: string): number {
    if (this.utc) return dayMs(day);
    return floorHour(instantOfWallTime(`${day}T00:00`, this.zone)!.getTime());
  }

  private offsetOf(ms: number): number {
    let offset = 0;
    for (const change of this.offsets) if (change.since <= ms) offset = change.offset;
    return offset;
  }

  /** The local date an hour (its start, ms) belongs to: the one in which it ends. */
  dayOfHour(hourMs: number): string {
    const last = hourMs + HOUR_MS - 1;
    return toDay(last + this.offsetOf(last));
  }

  /** An hour's key in a report: UTC's YYYY-MM-DDTHH:00:00Z, or the local time with its offset (2026-03-02T00:00:00+01:00). */
  hourKeyOf(hourMs: number): string {
    if (this.utc) return hourKey(hourMs);
    const offset = this.offsetOf(hourMs);
    const minutes = Math.abs(offset) / 60_000;
    const sign = offset < 0 ? '-' : '+';
    const zone = `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    return `${new Date(hourMs + offset).toISOString().slice(0, 19)}${zone}`;
  }

  /** The report bucket an hour (its start, ms) falls in. */
  bucketOfHour(hourMs: number, granularity: Granularity): string {
    if (granularity === 'hour') return this.hourKeyOf(hourMs);
    return bucketOf(`${this.dayOfHour(hourMs)}T00:00:00Z`, granularity);
  }

  /** The UTC days the period touches, whole or in part: those whose rollup rows may hold its views. */
  get utcDays(): { from: string; to: string } {
    return { from: toDay(floorDay(this.from)), to: toDay(ceilDay(this.to)) };
  }

  /** The UTC days whose visitor sets count in the period: those whose noon is in it. */
  get visitorDays(): Period {
    return { start: toDay(ceilDay(this.from - DAY_MS / 2)), end: toDay(ceilDay(this.to - DAY_MS / 2)) };
  }

  /** The report bucket a UTC day's visitors count in: that of the local day holding its noon. */
  bucketOfVisitorDay(day: string, granularity: Granularity): string {
    const noon = dayMs(day) + DAY_MS / 2;
    return bucketOf(`${toDay(noon + this.offsetOf(noon))}T00:00:00Z`, granularity);
  }

  /** The whole UTC days inside the period, and the instants before and after them ([from, to) each). */
  get wholeDays(): { days?: Period; edges: Array<{ from: string; to: string }> } {
    const first = ceilDay(this.from);
    const end = floorDay(this.to);
    const iso = (ms: number) => new Date(ms).toISOString();
    // An empty period (a comparison with nothing kept before it) reads nothing.
    if (this.from >= this.to) return { edges: [] };
    if (first >= end) return { edges: [{ from: iso(this.from), to: iso(this.to) }] };
    const edges = [
      { from: this.from, to: first },
      { from: end, to: this.to },
    ]
      .filter((edge) => edge.from < edge.to)
      .map((edge) => ({ from: iso(edge.from), to: iso(edge.to) }));
    return { days: { start: toDay(first), end: toDay(end) }, edges };
  }

  /**
   * The period's days, each with its instants [from, to) and the UTC day whose visitors count in
   * it (the one whose noon it holds), if any.
   */
  *days(): Generator<{ day: string; from: number; to: number; visitorDay?: string }> {
    for (let ms = dayMs(this.period.start); ms < dayMs(this.period.end); ms += DAY_MS) {
      const day = toDay(ms);
      const from = this.midnight(day);
      const to = this.midnight(toDay(ms + DAY_MS));
      const noonDay = ceilDay(from - DAY_MS / 2);
      yield { day, from, to, ...(noonDay + DAY_MS / 2 < to ? { visitorDay: toDay(noonDay) } : {}) };
    }
  }

  /**
   * Every bucket of the period, in order, for a zero-filled series: at most 1,000, else 400
   * naming the granularity (a coarser one fits).
   */
  buckets(granularity: Granularity): string[] {
    const buckets: string[] = [];
    const step = granularity === 'hour' ? HOUR_MS : DAY_MS;
    const [from, to] = granularity === 'hour' ? [this.from, this.to] : [dayMs(this.period.start), dayMs(this.period.end)];
    for (let ms = from; ms < to; ms += step) {
      const key = granularity === 'hour' ? this.hourKeyOf(ms) : bucketOf(`${toDay(ms)}T00:00:00Z`, granularity);
      if (buckets.at(-1) !== key) buckets.push(key);
      if (buckets.length > MAX_BUCKETS) {
        throw validationError(
          'granularity',
          `the period holds more than ${MAX_BUCKETS} ${granularity} buckets; choose a coarser granularity`,
        );
      }
    }
    return buckets;
  }
}
