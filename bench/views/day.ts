import { encodeVisitorSet } from '../../src/features/analytics/visitor-sets.js';
import { newSetRevision } from '../../src/features/analytics/visitor-sets.repository.js';
import { getOrCreate } from '../../src/lib/maps.js';
import {
  CAMPAIGNS,
  campaignPicker,
  dimensionLayout,
  DURATION_SHARE,
  HOUR_WEIGHTS,
  PLACES,
  PROFILES,
  REFERRERS,
  RETURNING_SHARE,
  type Visitors,
} from './model.js';
import { cumulative, pickCumulative, viewUlid, type AliasTable, type Random } from './random.js';

/** A tag as the generator needs it; `index` order is tag id order (see generate.ts). */
export interface GeneratedTag {
  id: string;
  environment: string;
  ownerId: string;
  organizationId: string | null;
  /** Popularity (Zipf by a random rank). */
  weight: number;
  /** Share of its views that are QR scans; the rest are direct visits and referrals, 2 : 1. */
  qrShare: number;
  /** Index of the first day of the period with views: not every tag is a year old. */
  firstDay: number;
}

/**
 * Rows of every table for one day, each list in its table's primary-key order; `visitors`
 * (their numbers) is written once, after the last day.
 */
export interface DayRows {
  views: unknown[][];
  tag_hourly: unknown[][];
  tag_daily: unknown[][];
  tag_daily_dimensions: unknown[][];
  scope_daily_dimensions: unknown[][];
  tag_visitor_hours: unknown[][];
  tag_visitor_days: unknown[][];
  tag_day_visitors: unknown[][];
  scope_day_visitors: unknown[][];
  /** These two filled by the caller as the days move into another month (month-sets.ts). */
  scope_month_visitors: unknown[][];
  tag_month_visitors: unknown[][];
  visitors: unknown[][];
}

/** The tags that have views on a day, and how to draw one by popularity. */
export interface ActiveTags {
  indexes: Int32Array;
  picker: AliasTable;
}

const HOUR_MS = 3_600_000;
const RECENT = 64;
// Sort keys pack (ms in the day, view index) into one double: 27 + 20 bits, exact below 2^53.
const INDEX_BITS = 2 ** 20;

/**
 * Generates one day of views at a time, with the rollups the ViewRecorder would have written
 * for them (src/features/analytics/view-recorder.ts). A day's hours and visitor-days all fall
 * inside the day, so each day's rollup rows are complete and are inserted, never updated.
 */
export class DayGenerator {
  private readonly recent: Int32Array;
  private readonly recentCount: Int32Array;
  private readonly layout = dimensionLayout();
  /** Views generated per tag so far. */
  readonly tagViews: Float64Array;
  /** Per visitor, the last closed day (index) it was seen on, -1 if none: the visitors table. */
  private readonly lastClosedDay: Int16Array;

  constructor(
    private readonly tags: GeneratedTag[],
    private readonly visitors: Visitors,
    private readonly random: Random,
  ) {
    this.recent = new Int32Array(tags.length * RECENT);
    this.recentCount = new Int32Array(tags.length);
    this.tagViews = new Float64Array(tags.length);
    this.lastClosedDay = new Int16Array(visitors.size).fill(-1);
    if (tags.length * 24 * visitors.size >= 2 ** 53) throw new Error('too many tags × visitors for the numeric keys');
  }

  /**
   * `count` views between `dayStart` and `until` (the day's end, or now for today). A day the
   * service would have closed (see src/features/analytics/sealing.ts) gets visitor sets; the
   * open one (today) visitor rows per day and hour, as the ViewRecorder writes them.
   */
  generate(dayStart: number, count: number, until: number, active: ActiveTags, day: { index: number; open: boolean }): DayRows {
    if (count >= INDEX_BITS) throw new Error(`at most ${INDEX_BITS - 1} views a day`);
    const { random, visitors, tags } = this;
    // Hours after `until` get nothing; the hour holding it only its elapsed part.
    const spans = HOUR_WEIGHTS.map((_, h) => Math.max(0, Math.min(HOUR_MS, until - (dayStart + h * HOUR_MS))));
    const hours = cumulative(HOUR_WEIGHTS.map((w, h) => (w * spans[h]!) / HOUR_MS));

    const tag = new Int32Array(count);
    const visitor = new Int32Array(count);
    const source = new Uint8Array(count);
    const campaign = new Uint8Array(count);
    const duration = new Int32Array(count);
    const keys = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const t = active.indexes[active.picker.pick(random.next())]!;
      const h = pickCumulative(hours, random.next());
      const offset = h * HOUR_MS + Math.floor(random.next() * spans[h]!);
      const seen = Math.min(this.recentCount[t]!, RECENT);
      let v: number;
      if (seen > 0 && random.next() < RETURNING_SHARE) {
        v = this.recent[t * RECENT + random.int(seen)]!;
      } else {
        // Squared: a few visitors are regulars, most come once or twice.
        const u = random.next();
        v = Math.floor(u * u * visitors.size);
        this.recent[t * RECENT + (this.recentCount[t]! % RECENT)] = v;
        this.recentCount[t]!++;
      }
      const s = random.next();
      source[i] = s < tags[t]!.qrShare ? 0 : s < tags[t]!.qrShare + (1 - tags[t]!.qrShare) * (2 / 3) ? 1 : 2;
      campaign[i] = campaignPicker.pick(random.next());
      duration[i] = random.next() < DURATION_SHARE ? Math.min(3600, Math.max(1, Math.round(Math.exp(3 + random.normal())))) : -1;
      tag[i] = t;
      visitor[i] = v;
      keys[i] = offset * INDEX_BITS + i;
    }
    keys.sort();
    return this.rows(dayStart, { tag, visitor, source, campaign, duration, keys, ...day });
  }

  /** The visitors table: every visitor seen on a closed day, numbered by the generator's own number + 1. */
  visitorRows(firstDayMs: number): unknown[][] {
    const rows: unknown[][] = [];
    for (let v = 0; v < this.lastClosedDay.length; v++) {
      const d = this.lastClosedDay[v]!;
      if (d >= 0) rows.push([v + 1, this.visitors.id(v), new Date(firstDayMs + d * 86_400_000).toISOString().slice(0, 10)]);
    }
    return rows;
  }

  private rows(
    dayStart: number,
    day: {
      tag: Int32Array;
      visitor: Int32Array;
      source: Uint8Array;
      campaign: Uint8Array;
      duration: Int32Array;
      keys: Float64Array;
      index: number;
      open: boolean;
    },
  ): DayRows {
    const { tags, visitors, random, layout } = this;
    const P = visitors.size;
    const T = tags.length;
    const dayKey = new Date(dayStart).toISOString().slice(0, 10);
    const hourKeys = HOUR_WEIGHTS.map((_, h) => `${dayKey}T${String(h).padStart(2, '0')}:00:00Z`);
    const hourly = new Float64Array(T * 24 * 5);
    // Per tag: views, QR scans, direct visits, time on page (sum, count).
    const daily = new Int32Array(T * 5);
    const dims = new Int32Array(T * layout.width);
    const visitorHours = new Set<number>();
    const visitorDays = new Set<number>();
    const ids = new Map<number, string>();
    const idOf = (v: number) => {
      let id = ids.get(v);
      if (id === undefined) ids.set(v, (id = visitors.id(v)));
      return id;
    };

    const views: unknown[][] = [];
    for (const key of day.keys) {
      const i = key % INDEX_BITS;
      const offset = (key - i) / INDEX_BITS;
      const t = day.tag[i]!;
      const v = day.visitor[i]!;
      const at = dayStart + offset;
      const h = Math.floor(offset / HOUR_MS);
      const profileIndex = visitors.profile(v);
      const profile = PROFILES[profileIndex]!;
      const placeIndex = visitors.place(v);
      const place = PLACES[placeIndex]!;
      const referrerIndex = visitors.referrer(v);
      const campaignIndex = day.campaign[i]!;
      const utm = CAMPAIGNS[campaignIndex]!;
      const src = day.source[i]!;
      const seconds = day.duration[i]!;
      const g = tags[t]!;
      views.push([
        `view_${viewUlid(at, random)}`,
        g.id,
        g.environment,
        g.ownerId,
        g.organizationId,
        new Date(at).toISOString(),
        src === 0 ? 'qr_scan' : src === 1 ? 'direct' : 'referral',
        idOf(v),
        profile.device,
        profile.browser,
        profile.os,
        place.code,
        place.region,
        place.city,
        visitors.maskedIp(v),
        null,
        src === 2 ? REFERRERS[referrerIndex]![0] : null,
        0,
        seconds < 0 ? null : seconds,
        utm.source,
        utm.medium,
        utm.campaign,
      ]);
      const slot = (t * 24 + h) * 5;
      hourly[slot]!++;
      if (src === 0) hourly[slot + 1]!++;
      if (src === 1) hourly[slot + 2]!++;
      if (seconds >= 0) {
        hourly[slot + 3]! += seconds;
        hourly[slot + 4]!++;
      }
      daily[t * 5]!++;
      if (src === 0) daily[t * 5 + 1]!++;
      if (src === 1) daily[t * 5 + 2]!++;
      if (seconds >= 0) {
        daily[t * 5 + 3]! += seconds;
        daily[t * 5 + 4]!++;
      }
      const counters = t * layout.width;
      for (const slot of layout.profileSlots[profileIndex]!) dims[counters + slot]!++;
      for (const slot of layout.placeSlots[placeIndex]!) dims[counters + slot]!++;
      for (const slot of layout.campaignSlots[campaignIndex]!) dims[counters + slot]!++;
      dims[counters + (src === 2 ? layout.referrerSlots[referrerIndex]! : layout.directSlot)]!++;
      visitorHours.add((t * 24 + h) * P + v);
      visitorDays.add(t * P + v);
      this.tagViews[t]!++;
    }

    const hourUnique = new Int32Array(T * 24);
    const hourSlots = sortedKeys(visitorHours);
    for (const k of hourSlots) hourUnique[Math.floor(k / P)]!++;
    const tagHourly: unknown[][] = [];
    const tagDims: unknown[][] = [];
    // Per scope, its tags' counters added up: the overview's breakdowns (scopeSlots) come from them.
    const scopeDims = new Map<string, Int32Array>();
    for (let t = 0; t < T; t++) {
      for (let h = 0; h < 24; h++) {
        const s = (t * 24 + h) * 5;
        if (hourly[s]! > 0)
          tagHourly.push([
            tags[t]!.id,
            hourKeys[h],
            hourly[s],
            hourly[s + 1],
            hourly[s + 2],
            hourly[s + 3],
            hourly[s + 4],
            hourUnique[t * 24 + h],
          ]);
      }
      if (daily[t * 5]! === 0) continue;
      const counters = dims.subarray(t * layout.width, (t + 1) * layout.width);
      for (const { dimension, value, slot } of layout.slots) {
        if (counters[slot]! > 0) tagDims.push([tags[t]!.id, dayKey, dimension, value, counters[slot]]);
      }
      const g = tags[t]!;
      const scope = getOrCreate(scopeDims, `${g.environment}|${g.organizationId ?? g.ownerId}`, () => new Int32Array(layout.width));
      for (const { slot } of layout.scopeSlots) scope[slot]! += counters[slot]!;
    }

    // Keys t * P + v ascend by tag, then visitor: each tag's visitors come together, in order.
    const unique = new Int32Array(T);
    const tagVisitorDays: unknown[][] = [];
    const tagDayVisitors: unknown[][] = [];
    // A closed day's visitors of each scope: the union of its tags' (what the seal job keeps).
    const scopeMembers = new Map<string, Set<number>>();
    const dayKeys = sortedKeys(visitorDays);
    for (let start = 0; start < dayKeys.length;) {
      const t = Math.floor(dayKeys[start]! / P);
      let end = start;
      while (end < dayKeys.length && Math.floor(dayKeys[end]! / P) === t) end++;
      unique[t] = end - start;
      const members = dayKeys.slice(start, end).map((k) => k - t * P);
      if (day.open) {
        // The rollup stores a visitor's number on the row when the visitor has one (a closed day's).
        for (const v of members) tagVisitorDays.push([tags[t]!.id, dayKey, idOf(v), this.lastClosedDay[v]! >= 0 ? v + 1 : null]);
      } else {
        for (const v of members) this.lastClosedDay[v] = day.index;
        tagDayVisitors.push([tags[t]!.id, dayKey, encodeVisitorSet(members.map((v) => v + 1))]);
        const g = tags[t]!;
        const scope = getOrCreate(scopeMembers, `${g.environment}|${g.organizationId ?? g.ownerId}`, () => new Set<number>());
        for (const v of members) scope.add(v + 1);
      }
      start = end;
    }
    const tagVisitorHours = day.open
      ? hourSlots.map((k) => {
          const slot = Math.floor(k / P);
          return [tags[Math.floor(slot / 24)]!.id, hourKeys[slot % 24], idOf(k - slot * P)];
        })
      : [];
    const tagDaily: unknown[][] = [];
    for (let t = 0; t < T; t++) {
      const g = tags[t]!;
      const d = daily.subarray(t * 5, t * 5 + 5);
      if (d[0]! > 0) tagDaily.push([g.id, dayKey, g.environment, g.ownerId, g.organizationId, d[0], d[1], d[2], unique[t], d[3], d[4]]);
    }
    return {
      views,
      tag_hourly: tagHourly,
      tag_daily: tagDaily,
      tag_daily_dimensions: tagDims,
      scope_daily_dimensions: [...scopeDims]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .flatMap(([key, counters]) =>
          layout.scopeSlots.flatMap(({ dimension, value, slot }) =>
            counters[slot]! > 0 ? [[...key.split('|'), dayKey, dimension, value, counters[slot]]] : [],
          ),
        ),
      tag_visitor_hours: tagVisitorHours,
      tag_visitor_days: tagVisitorDays,
      tag_day_visitors: tagDayVisitors,
      scope_day_visitors: [...scopeMembers]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([key, numbers]) => [...key.split('|'), dayKey, encodeVisitorSet(Float64Array.from(numbers).sort()), newSetRevision()]),
      scope_month_visitors: [],
      tag_month_visitors: [],
      visitors: [],
    };
  }
}

function sortedKeys(set: Set<number>): number[] {
  return Array.from(Float64Array.from(set).sort());
}
