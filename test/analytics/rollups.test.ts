import { beforeAll, describe, expect, it } from 'vitest';
import { closeVisitorDays } from '../../src/features/analytics/sealing.js';
import { decodeVisitorSet } from '../../src/features/analytics/visitor-sets.js';
import { analyticsSealJob } from '../../src/jobs/analytics-seal.js';
import { jobs } from '../../src/jobs/index.js';
import { createAccount } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, getData, useAnalyticsApp, view, visitorId, type CreatedTag } from './support.js';

/**
 * The rollups reports read at scale: closed days' visitors as numbered visitor sets (the seal
 * job), and the monthly per-tag rollup the overview's top tags use for whole months.
 */
describe('analytics rollups', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');

  const report = (tag: CreatedTag, start: string, end: string, granularity = 'day') =>
    getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: start, end_date: end, granularity });
  /** [tag, day, views] rows: each view at noon of its day, by a visitor of its own. */
  async function viewAsPlanned(plan: Array<[CreatedTag, string, number]>, visitorPrefix: string): Promise<void> {
    for (const [tag, day, count] of plan) {
      for (let i = 0; i < count; i++)
        await view(t, tag.short_id, { at: `${day}T12:0${i}:00.000Z`, visitor: visitorId(`${visitorPrefix}-${day}-${i}`) });
    }
  }
  const uniques = (data: { timeseries: Array<{ date: string; unique: number }> }) =>
    Object.fromEntries(data.timeseries.filter((b) => b.unique > 0).map((b) => [b.date, b.unique]));

  it('the seal job runs every minute with the worker', () => {
    expect(jobs).toContain(analyticsSealJob);
    expect(analyticsSealJob.intervalMs).toBe(60_000);
  });

  describe('closing days into visitor sets', () => {
    let tag: CreatedTag;
    const [A, B, C, D] = ['a', 'b', 'c', 'd'].map((n) => visitorId(`seal-${n}`)) as [string, string, string, string];

    beforeAll(async () => {
      t.clock.freeze(new Date('2026-05-01T08:00:00.000Z'));
      tag = await createTag(t, owner.key, { title: 'Sealed' });
      await view(t, tag.short_id, { at: '2026-05-01T09:00:00.000Z', visitor: A });
      await view(t, tag.short_id, { at: '2026-05-01T10:00:00.000Z', visitor: B });
      await view(t, tag.short_id, { at: '2026-05-01T11:00:00.000Z', visitor: A });
      await view(t, tag.short_id, { at: '2026-05-02T09:00:00.000Z', visitor: A });
      await view(t, tag.short_id, { at: '2026-05-02T09:30:00.000Z', visitor: C });
    });

    it('a day closes only after its grace period; then its visitors are a set and the numbers stay the same', async () => {
      const before = await report(tag, '2026-05-01', '2026-05-04', 'week');
      expect(before.summary.unique_views).toBe(3);

      // Five minutes into 05-02: 05-01 is still in its grace period.
      expect(await closeVisitorDays(t.database.db, Date.parse('2026-05-02T00:05:00.000Z'))).toBe(0);
      // 05-03, ten minutes in: both days close.
      t.clock.freeze(new Date('2026-05-03T00:10:00.000Z'));
      expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(2);
      expect(await t.database.db.selectFrom('tag_visitor_days').selectAll().where('tag_id', '=', tag.id).execute()).toEqual([]);
      // The per-hour visitor rows are dropped once no view can still land in their hour.
      expect(await t.database.db.selectFrom('tag_visitor_hours').selectAll().where('tag_id', '=', tag.id).execute()).toEqual([]);

      const sets = await t.database.db
        .selectFrom('tag_day_visitors')
        .select(['day', 'visitors'])
        .where('tag_id', '=', tag.id)
        .orderBy('day')
        .execute();
      expect(sets.map((s) => [s.day, decodeVisitorSet(s.visitors).length])).toEqual([
        ['2026-05-01', 2],
        ['2026-05-02', 2],
      ]);
      const numbers = await t.database.db
        .selectFrom('visitors')
        .select(['id', 'key', 'last_day'])
        .where('key', 'in', [A, B, C])
        .orderBy('key')
        .execute();
      expect(numbers.map((n) => [n.key, n.last_day])).toEqual([
        [A, '2026-05-02'],
        [B, '2026-05-01'],
        [C, '2026-05-02'],
      ]);
      const numberOf = new Map(numbers.map((n) => [n.key, Number(n.id)]));
      expect([...decodeVisitorSet(sets[0]!.visitors)]).toEqual([numberOf.get(A)!, numberOf.get(B)!].sort((x, y) => x - y));

      expect(await report(tag, '2026-05-01', '2026-05-04', 'week')).toEqual(before);
      const days = await report(tag, '2026-05-01', '2026-05-04');
      expect(days.summary).toMatchObject({ total_views: 5, unique_views: 3 });
      expect(uniques(days)).toEqual({ '2026-05-01': 2, '2026-05-02': 2 });
      // Running again finds nothing to close.
      expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(0);
    });

    it('open and closed days together: a closed day and today count each visitor once', async () => {
      await view(t, tag.short_id, { at: '2026-05-03T09:00:00.000Z', visitor: A });
      await view(t, tag.short_id, { at: '2026-05-03T09:10:00.000Z', visitor: D });
      const data = await report(tag, '2026-05-01', '2026-05-04', 'month');
      expect(data.summary).toMatchObject({ total_views: 7, unique_views: 4 });
      expect(data.timeseries).toEqual([{ date: '2026-05-01', views: 7, unique: 4 }]);
    });

    it('a view that lands in a closed day reopens it; closing again merges the sets without counting anyone twice', async () => {
      // Late arrivals (only possible past the grace period if a commit stalls): a new visitor and a known one.
      await view(t, tag.short_id, { at: '2026-05-01T23:59:00.000Z', visitor: D });
      await view(t, tag.short_id, { at: '2026-05-01T23:59:30.000Z', visitor: A });
      t.clock.freeze(new Date('2026-05-03T12:00:00.000Z'));
      // The period's distinct visitors are exact at once.
      expect((await report(tag, '2026-05-01', '2026-05-02')).summary).toMatchObject({ total_views: 5, unique_views: 3 });
      expect((await report(tag, '2026-05-01', '2026-05-04', 'week')).summary.unique_views).toBe(4);

      expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(1);
      const day = await report(tag, '2026-05-01', '2026-05-02');
      expect(day.timeseries).toEqual([{ date: '2026-05-01', views: 5, unique: 3 }]);
      const overview = await getData(t, owner.key, '/v1/analytics/overview', { start_date: '2026-05-01', end_date: '2026-05-04' });
      // Distinct visitors: 05-01 A B D and 05-02 A C from the scope's sets of the closed days
      // (05-01 closed twice, its sets merged), 05-03 A D from its open rows: A B C D.
      expect(overview.totals).toMatchObject({ views: 9, unique_views: 4 });
    });

    it('two sealers at once close each day once', async () => {
      const other = await createTag(t, owner.key, { title: 'Raced' });
      for (const [i, visitor] of [A, B, C, D].entries()) await view(t, other.short_id, { at: `2026-05-04T1${i}:00:00.000Z`, visitor });
      t.clock.freeze(new Date('2026-05-05T01:00:00.000Z'));
      const closed = await Promise.all([
        closeVisitorDays(t.database.db, t.clock.now().getTime()),
        closeVisitorDays(t.database.db, t.clock.now().getTime()),
      ]);
      expect(closed[0]! + closed[1]!).toBeGreaterThanOrEqual(1);
      const data = await report(other, '2026-05-04', '2026-05-05');
      expect(data.timeseries).toEqual([{ date: '2026-05-04', views: 4, unique: 4 }]);
      expect(data.summary.unique_views).toBe(4);
      const set = await t.database.db
        .selectFrom('tag_day_visitors')
        .select('visitors')
        .where('tag_id', '=', other.id)
        .executeTakeFirstOrThrow();
      expect(decodeVisitorSet(set.visitors)).toHaveLength(4);
    });
  });

  it("the overview's top tags and a tag's breakdowns add whole months from the monthly rollups to the days around them", async () => {
    const account = await createAccount(t, 'pro');
    t.clock.freeze(new Date('2026-01-01T08:00:00.000Z'));
    const [x, y, z] = await Promise.all(['X', 'Y', 'Z'].map((title) => createTag(t, account.key, { title })));
    // [tag, day, views]: X leads inside the whole months, Y wins with the edge days, Z only outside the period.
    const plan: Array<[CreatedTag, string, number]> = [
      [z!, '2026-01-19', 9],
      [y!, '2026-01-20', 2],
      [x!, '2026-02-01', 2],
      [x!, '2026-03-31', 1],
      [y!, '2026-04-04', 2],
      [z!, '2026-04-05', 9],
    ];
    await viewAsPlanned(plan, 'm');
    t.clock.freeze(new Date('2026-04-10T08:00:00.000Z'));
    const overview = await getData(t, account.key, '/v1/analytics/overview', { start_date: '2026-01-20', end_date: '2026-04-05' });
    expect(overview.top_tags).toEqual([
      { id: y!.id, title: 'Y', views: 4 },
      { id: x!.id, title: 'X', views: 3 },
    ]);
    expect(overview.totals).toMatchObject({ views: 7, unique_views: 7 });
    // Whole months only.
    const months = await getData(t, account.key, '/v1/analytics/overview', { start_date: '2026-02-01', end_date: '2026-04-01' });
    expect(months.top_tags).toEqual([{ id: x!.id, title: 'X', views: 3 }]);

    const breakdowns = async (tag: CreatedTag, start: string, end: string) => {
      const data = await getData(t, account.key, `/v1/tags/${tag.id}/analytics`, {
        start_date: start,
        end_date: end,
        granularity: 'month',
      });
      return { total: data.summary.total_views, device: data.by_device, browser: data.by_browser, country: data.by_country };
    };
    // Y: two views on the edge days before February, two after March; Z's are outside.
    expect(await breakdowns(y!, '2026-01-20', '2026-04-05')).toEqual({
      total: 4,
      device: { mobile: 4, desktop: 0, tablet: 0 },
      browser: { 'Mobile Safari': 4 },
      country: { other: 4 },
    });
    expect(await breakdowns(x!, '2026-01-20', '2026-04-05')).toEqual({
      total: 3,
      device: { mobile: 3, desktop: 0, tablet: 0 },
      browser: { 'Mobile Safari': 3 },
      country: { other: 3 },
    });
    expect(await breakdowns(x!, '2026-02-02', '2026-03-31')).toMatchObject({ total: 0, device: { mobile: 0, desktop: 0, tablet: 0 } });
    expect(await breakdowns(z!, '2026-01-20', '2026-04-05')).toMatchObject({ total: 0, browser: {} });
  });

  it("reads a period's last month from its monthly rows only when that month has no views after the period", async () => {
    const account = await createAccount(t, 'pro');
    t.clock.freeze(new Date('2026-07-01T08:00:00.000Z'));
    const [early, late] = await Promise.all(['Early', 'Late'].map((title) => createTag(t, account.key, { title })));
    // [tag, day, views]: Early's views end on the 3rd; Late has more on the 20th.
    const plan: Array<[CreatedTag, string, number]> = [
      [early!, '2026-07-01', 1],
      [early!, '2026-07-03', 2],
      [late!, '2026-07-03', 1],
      [late!, '2026-07-20', 3],
    ];
    await viewAsPlanned(plan, 'l');
    t.clock.freeze(new Date('2026-07-25T08:00:00.000Z'));
    const counted = async (tag: CreatedTag, start: string, end: string) => {
      const data = await getData(t, account.key, `/v1/tags/${tag.id}/analytics`, { start_date: start, end_date: end });
      const devices = Object.values(data.by_device as Record<string, number>).reduce((a, b) => a + b, 0);
      return { views: data.summary.total_views, devices };
    };
    // From the month's first day: Early's month has nothing later (its monthly rows are read),
    // Late's has the 20th (its daily rows are).
    expect(await counted(early!, '2026-07-01', '2026-07-10')).toEqual({ views: 3, devices: 3 });
    expect(await counted(late!, '2026-07-01', '2026-07-10')).toEqual({ views: 1, devices: 1 });
    // From a later day, the month's rows would hold the 1st.
    expect(await counted(early!, '2026-07-02', '2026-07-10')).toEqual({ views: 2, devices: 2 });
    // June's days and July's.
    expect(await counted(late!, '2026-06-15', '2026-07-21')).toEqual({ views: 4, devices: 4 });

    const overview = (start: string, end: string) =>
      getData(t, account.key, '/v1/analytics/overview', { start_date: start, end_date: end });
    const tenDays = await overview('2026-07-01', '2026-07-10');
    expect(tenDays.top_tags).toEqual([
      { id: early!.id, title: 'Early', views: 3 },
      { id: late!.id, title: 'Late', views: 1 },
    ]);
    expect(tenDays.by_referrer).toEqual({ direct: 4 });
    const throughThe20th = await overview('2026-07-01', '2026-07-21');
    expect(throughThe20th.top_tags).toEqual([
      { id: late!.id, title: 'Late', views: 4 },
      { id: early!.id, title: 'Early', views: 3 },
    ]);
    expect(throughThe20th.by_referrer).toEqual({ direct: 7 });
  });
});
