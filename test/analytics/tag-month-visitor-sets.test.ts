import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyticsRetentionJob } from '../../src/jobs/analytics-retention.js';
import { request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import {
  createTag,
  getData,
  useAnalyticsApp,
  view,
  visitorId,
  type CreatedTag,
  MONTH_EDGE_PERIODS,
  monthSetSizes,
  REPORT_ZONES,
  sealAt,
} from './support.js';

/**
 * A tag report's distinct visitors read a closed UTC month's visitors from the tag's month set
 * (tag_month_visitors) instead of its days' sets. The counts must be those of the day sets
 * alone, for every period, zone, granularity and comparison, whether the month sets are built,
 * missing or stale; a month set serves only buckets that hold the whole month; the seal job
 * builds a month's set once every day of it is closed and again when a late view changes one;
 * tag deletion and retention drop the sets.
 */
describe('tag report: month visitor sets', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  let A: CreatedTag;
  let B: CreatedTag;
  const v = Array.from({ length: 10 }, (_, i) => visitorId(`tm${i}`));

  /** The tag's month sets, as month: [visitors, stale]. */
  async function monthSets(tag: CreatedTag): Promise<Record<string, [number, number]>> {
    const rows = await t.database.db
      .selectFrom('tag_month_visitors')
      .select(['month', 'visitors', 'stale'])
      .where('tag_id', '=', tag.id)
      .orderBy('month')
      .execute();
    return monthSetSizes(rows);
  }

  const GRANULARITIES = ['day', 'week', 'month'];

  const report = (tag: CreatedTag, query: Record<string, string>) => getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, query);

  /** Both tags' unique visitors, the previous period's and each bucket's, for every period, zone and granularity. */
  async function allUniques(): Promise<string[]> {
    const answers = [];
    for (const tag of [A, B]) {
      for (const [start, end] of MONTH_EDGE_PERIODS) {
        for (const timezone of REPORT_ZONES) {
          for (const granularity of GRANULARITIES) {
            const data = await report(tag, { start_date: start, end_date: end, timezone, granularity, compare: 'previous' });
            const buckets = data.timeseries.map((bucket: { date: string; unique: number }) => `${bucket.date}=${bucket.unique}`);
            answers.push(
              `${tag.title} ${start}..${end} ${timezone} ${granularity}: ${data.summary.unique_views} (previous ${data.previous.summary.unique_views}) ${buckets.join(' ')}`,
            );
          }
        }
      }
    }
    return answers;
  }

  const uniques = async (tag: CreatedTag, start: string, end: string, granularity = 'day'): Promise<number> =>
    (await report(tag, { start_date: start, end_date: end, granularity })).summary.unique_views;

  const seal = (at: string) => sealAt(t, at);

  /** As migration 0033 leaves the months closed before it: a stale, empty set for each. */
  async function asMigrated(): Promise<void> {
    await t.database.db.deleteFrom('tag_month_visitors').execute();
    await sql`INSERT INTO tag_month_visitors (tag_id, month, visitors, stale)
      SELECT DISTINCT tag_id, substr(day, 1, 7) || '-01', '', 1 FROM tag_day_visitors`.execute(t.database.db);
  }

  let built: string[];

  beforeAll(async () => {
    [A, B] = [await createTag(t, owner.key, { title: 'A' }), await createTag(t, owner.key, { title: 'B' })];
    const visits: Array<[CreatedTag, string, string]> = [
      [A, '2025-10-03T10:00:00.000Z', v[0]!],
      [A, '2025-10-03T11:00:00.000Z', v[1]!],
      // 1 November in Berlin.
      [A, '2025-10-31T23:30:00.000Z', v[2]!],
      [B, '2025-10-31T23:30:00.000Z', v[2]!],
      [A, '2025-11-01T00:30:00.000Z', v[3]!],
      [A, '2025-11-15T10:00:00.000Z', v[0]!],
      [A, '2025-11-15T11:00:00.000Z', v[4]!],
      [B, '2025-11-15T11:00:00.000Z', v[4]!],
      // 1 December in Kolkata.
      [A, '2025-11-30T23:30:00.000Z', v[5]!],
      [A, '2025-12-01T10:00:00.000Z', v[1]!],
      [A, '2025-12-01T10:30:00.000Z', v[6]!],
      [A, '2025-12-20T10:00:00.000Z', v[7]!],
      [B, '2025-12-20T10:00:00.000Z', v[0]!],
      [A, '2026-01-02T10:00:00.000Z', v[8]!],
      [A, '2026-01-02T11:00:00.000Z', v[0]!],
      // 5 January is today at the first seal: its day stays open.
      [A, '2026-01-05T09:00:00.000Z', v[9]!],
    ];
    for (const [tag, at, visitor] of visits) await view(t, tag.short_id, { at, visitor });
    await seal('2026-01-05T12:00:00.000Z');
    built = await allUniques();
  });

  it('the seal job builds the sets of the closed months; the report counts each visitor once with them', async () => {
    // January's days are not all closed: its row only marks the set to build.
    expect(await monthSets(A)).toEqual({ '2025-10-01': [3, 0], '2025-11-01': [4, 0], '2025-12-01': [3, 0], '2026-01-01': [0, 1] });
    expect(await monthSets(B)).toEqual({ '2025-10-01': [1, 0], '2025-11-01': [1, 0], '2025-12-01': [1, 0] });
    expect(await uniques(A, '2025-10-01', '2026-01-06')).toBe(10);
    // 31 Oct (v2), November whole (v0 v3 v4 v5), 1 December (v1 v6).
    expect(await uniques(A, '2025-10-15', '2025-12-15')).toBe(7);
    expect(await uniques(A, '2025-11-01', '2025-12-01')).toBe(4);
  });

  it('counts alike with no month sets (before the migration) and with the stale empty ones the migration leaves; the job builds those', async () => {
    await t.database.db.deleteFrom('tag_month_visitors').execute();
    expect(await allUniques()).toEqual(built);
    await asMigrated();
    expect(await allUniques()).toEqual(built);
    await seal('2026-01-05T12:01:00.000Z');
    expect(await monthSets(A)).toEqual({ '2025-10-01': [3, 0], '2025-11-01': [4, 0], '2025-12-01': [3, 0], '2026-01-01': [0, 1] });
    expect(await allUniques()).toEqual(built);
  });

  it("reads a whole month from its built set, not its days', and only for a bucket that holds the whole month", async () => {
    const novemberDays = () =>
      t.database.db
        .selectFrom('tag_day_visitors')
        .selectAll()
        .where('tag_id', '=', A.id)
        .where('day', '>=', '2025-11-01')
        .where('day', '<', '2025-12-01');
    const kept = await novemberDays().execute();
    await t.database.db
      .deleteFrom('tag_day_visitors')
      .where('tag_id', '=', A.id)
      .where(
        'day',
        'in',
        kept.map((row) => row.day),
      )
      .execute();
    try {
      expect(await uniques(A, '2025-11-01', '2025-12-01')).toBe(4);
      const months = await report(A, { start_date: '2025-10-01', end_date: '2026-01-01', granularity: 'month' });
      expect(months.timeseries.map((bucket: { unique: number }) => bucket.unique)).toEqual([3, 4, 3]);
      // A week never holds a whole month: weeks count from the day sets, here without November's.
      const weeks = await report(A, { start_date: '2025-11-01', end_date: '2025-12-01', granularity: 'week' });
      expect(weeks.summary.unique_views).toBe(4);
      expect(weeks.timeseries.map((bucket: { unique: number }) => bucket.unique)).toEqual([0, 0, 0, 0, 0]);
      // A stale month set is not read: the day sets count (here none).
      await t.database.db
        .updateTable('tag_month_visitors')
        .set({ stale: 1 })
        .where('tag_id', '=', A.id)
        .where('month', '=', '2025-11-01')
        .execute();
      expect(await uniques(A, '2025-11-01', '2025-12-01')).toBe(0);
    } finally {
      await t.database.db.insertInto('tag_day_visitors').values(kept).execute();
      await seal('2026-01-05T12:02:00.000Z');
    }
    expect(await monthSets(A)).toEqual({ '2025-10-01': [3, 0], '2025-11-01': [4, 0], '2025-12-01': [3, 0], '2026-01-01': [0, 1] });
    expect(await allUniques()).toEqual(built);
  });

  it("builds a month's set once its last day is closed, not before", async () => {
    // 31 January is still within the grace period: it stays open, and January unbuilt.
    await seal('2026-02-01T00:05:00.000Z');
    expect((await monthSets(A))['2026-01-01']).toEqual([0, 1]);
    await seal('2026-02-01T00:11:00.000Z');
    // v8, v0 (2 January) and v9 (5 January).
    expect((await monthSets(A))['2026-01-01']).toEqual([3, 0]);
    expect(await uniques(A, '2026-01-01', '2026-02-01')).toBe(3);
    expect(await allUniques()).toEqual(built);
  });

  it("a late view into a built month counts at once, and the month's set is built again when its day closes", async () => {
    const late = visitorId('tm-late');
    await view(t, A.short_id, { at: '2025-11-20T10:00:00.000Z', visitor: late });
    t.clock.freeze(new Date('2026-02-01T00:12:00.000Z'));
    // Its day is open again: the built set and the open rows together count it.
    expect((await monthSets(A))['2025-11-01']).toEqual([4, 0]);
    expect(await uniques(A, '2025-11-01', '2025-12-01')).toBe(5);
    await seal('2026-02-01T00:13:00.000Z');
    expect((await monthSets(A))['2025-11-01']).toEqual([5, 0]);
    expect(await uniques(A, '2025-11-01', '2025-12-01')).toBe(5);
  });

  it("a tag's deletion takes its month sets; retention drops a month set once any of its days is gone", async () => {
    expect((await request(t, 'DELETE', `/v1/tags/${B.id}`, { key: owner.key })).status).toBe(200);
    expect(await monthSets(B)).toEqual({});
    // Pro keeps 365 days: the oldest kept day is 2025-10-21, in the middle of October.
    t.clock.freeze(new Date('2026-10-20T12:00:00.000Z'));
    await analyticsRetentionJob.run(t.services);
    expect(await monthSets(A)).toEqual({ '2025-11-01': [5, 0], '2025-12-01': [3, 0], '2026-01-01': [3, 0] });
    // v2 (31 October), v3 v0 v4 v5 and the late visitor (November), v1 v6 v7 (December).
    expect(await uniques(A, '2025-10-21', '2026-01-01')).toBe(9);
  });
});
