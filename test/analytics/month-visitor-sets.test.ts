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
 * The overview's distinct visitors read a closed UTC month's visitors from its month set
 * (scope_month_visitors) instead of its days' sets. The counts must be those of the day sets
 * alone, for every period, zone and comparison, whether the month sets are built, missing or
 * stale; the seal job builds a month's set only once every day of it is closed; tag deletion
 * marks it stale and retention drops it with its first day.
 */
describe('overview: month visitor sets', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  let A: CreatedTag;
  let B: CreatedTag;
  const v = Array.from({ length: 10 }, (_, i) => visitorId(`mv${i}`));

  /** The owner's month sets, as month: [visitors, stale]. */
  async function monthSets(): Promise<Record<string, [number, number]>> {
    const rows = await t.database.db
      .selectFrom('scope_month_visitors')
      .select(['month', 'visitors', 'stale'])
      .where('scope_id', '=', owner.userId)
      .orderBy('month')
      .execute();
    return monthSetSizes(rows);
  }

  /** unique_views and the previous period's, for every period and zone. */
  async function allUniques(): Promise<string[]> {
    const answers = [];
    for (const [start, end] of MONTH_EDGE_PERIODS) {
      for (const timezone of REPORT_ZONES) {
        const data = await getData(t, owner.key, '/v1/analytics/overview', {
          start_date: start,
          end_date: end,
          timezone,
          compare: 'previous',
        });
        answers.push(`${start}..${end} ${timezone}: ${data.totals.unique_views} (previous ${data.previous.totals.unique_views})`);
      }
    }
    return answers;
  }

  const uniques = async (start: string, end: string): Promise<number> =>
    (await getData(t, owner.key, '/v1/analytics/overview', { start_date: start, end_date: end })).totals.unique_views;

  const seal = (at: string) => sealAt(t, at);

  /** As migration 0029 leaves the months closed before it: a stale, empty set for each. */
  async function asMigrated(): Promise<void> {
    await t.database.db.deleteFrom('scope_month_visitors').execute();
    await sql`INSERT INTO scope_month_visitors (environment, scope_id, month, visitors, stale)
      SELECT DISTINCT environment, scope_id, substr(day, 1, 7) || '-01', '', 1 FROM scope_day_visitors`.execute(t.database.db);
  }

  let built: string[];

  beforeAll(async () => {
    [A, B] = [await createTag(t, owner.key, { title: 'A' }), await createTag(t, owner.key, { title: 'B' })];
    const visits: Array<[CreatedTag, string, string]> = [
      [A, '2025-10-03T10:00:00.000Z', v[0]!],
      [A, '2025-10-03T11:00:00.000Z', v[1]!],
      // 1 November in Berlin.
      [B, '2025-10-31T23:30:00.000Z', v[2]!],
      [A, '2025-11-01T00:30:00.000Z', v[3]!],
      [B, '2025-11-15T10:00:00.000Z', v[0]!],
      [B, '2025-11-15T11:00:00.000Z', v[4]!],
      [A, '2025-11-30T23:30:00.000Z', v[5]!],
      [A, '2025-12-01T10:00:00.000Z', v[1]!],
      [B, '2025-12-01T10:30:00.000Z', v[6]!],
      [B, '2025-12-20T10:00:00.000Z', v[7]!],
      [A, '2026-01-02T10:00:00.000Z', v[8]!],
      [B, '2026-01-02T11:00:00.000Z', v[0]!],
      // 5 January is today at the first seal: its day stays open.
      [A, '2026-01-05T09:00:00.000Z', v[9]!],
    ];
    for (const [tag, at, visitor] of visits) await view(t, tag.short_id, { at, visitor });
    expect(await seal('2026-01-05T12:00:00.000Z')).toBe(10);
    built = await allUniques();
  });

  it('the seal job builds the sets of the closed months; the overview counts each visitor once with them', async () => {
    // January's days are not all closed: its row only marks the set to build.
    expect(await monthSets()).toEqual({ '2025-10-01': [3, 0], '2025-11-01': [4, 0], '2025-12-01': [3, 0], '2026-01-01': [0, 1] });
    expect(await uniques('2025-10-01', '2026-01-06')).toBe(10);
    // 31 Oct (v2), November whole (v0 v3 v4 v5), 1 December (v1 v6).
    expect(await uniques('2025-10-15', '2025-12-15')).toBe(7);
    expect(await uniques('2025-11-01', '2025-12-01')).toBe(4);
  });

  it('counts alike with no month sets (before the migration) and with the stale empty ones the migration leaves; the job builds those', async () => {
    await t.database.db.deleteFrom('scope_month_visitors').execute();
    expect(await allUniques()).toEqual(built);
    await asMigrated();
    expect(await allUniques()).toEqual(built);
    await seal('2026-01-05T12:01:00.000Z');
    expect(await monthSets()).toEqual({ '2025-10-01': [3, 0], '2025-11-01': [4, 0], '2025-12-01': [3, 0], '2026-01-01': [0, 1] });
    expect(await allUniques()).toEqual(built);
  });

  it("builds a month's set once its last day is closed, not before", async () => {
    // 31 January is still within the grace period: it stays open, and January unbuilt.
    await seal('2026-02-01T00:05:00.000Z');
    expect((await monthSets())['2026-01-01']).toEqual([0, 1]);
    await seal('2026-02-01T00:11:00.000Z');
    // v8, v0 (2 January) and v9 (5 January).
    expect((await monthSets())['2026-01-01']).toEqual([3, 0]);
    expect(await uniques('2026-01-01', '2026-02-01')).toBe(3);
    expect(await allUniques()).toEqual(built);
  });

  it("a tag's deletion marks its months' sets stale; the counts lose its visitors at once, and the job rebuilds the sets", async () => {
    expect((await request(t, 'DELETE', `/v1/tags/${B.id}`, { key: owner.key })).status).toBe(200);
    expect(await monthSets()).toEqual({ '2025-10-01': [3, 1], '2025-11-01': [4, 1], '2025-12-01': [3, 1], '2026-01-01': [3, 1] });
    // A's visitors: v0 v1 v3 v5 v8 v9.
    expect(await uniques('2025-10-01', '2026-01-06')).toBe(6);
    const stale = await allUniques();
    expect(stale).not.toEqual(built);
    await t.database.db.deleteFrom('scope_month_visitors').execute();
    expect(await allUniques()).toEqual(stale);
    await asMigrated();
    await seal('2026-02-01T00:12:00.000Z');
    expect(await monthSets()).toEqual({ '2025-10-01': [2, 0], '2025-11-01': [2, 0], '2025-12-01': [1, 0], '2026-01-01': [2, 0] });
    expect(await allUniques()).toEqual(stale);
  });

  it('retention drops a month set once any of its days is gone, and keeps the months wholly kept', async () => {
    // Pro keeps 365 days: the oldest kept day is 2025-10-21, in the middle of October.
    t.clock.freeze(new Date('2026-10-20T12:00:00.000Z'));
    await analyticsRetentionJob.run(t.services);
    expect(await monthSets()).toEqual({ '2025-11-01': [2, 0], '2025-12-01': [1, 0], '2026-01-01': [2, 0] });
    // v3 v5 (November), v1 (December), v8 v9 (January).
    expect(await uniques('2025-10-21', '2026-02-01')).toBe(5);
  });
});
