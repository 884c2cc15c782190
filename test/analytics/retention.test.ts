import { beforeAll, describe, expect, it } from 'vitest';
import { TAG_DIMENSIONS } from '../../src/db/dimensions.js';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { closeVisitorDays } from '../../src/features/analytics/sealing.js';
import { ViewRecorder } from '../../src/features/analytics/view-recorder.js';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { analyticsRetentionJob } from '../../src/jobs/analytics-retention.js';
import { sandboxPurgeJob } from '../../src/jobs/sandbox-purge.js';
import { createAccount, createKey, expectError, request, type Account } from '../helpers/app.js';
import {
  addDays,
  createTag,
  expectBeaconAccepted,
  get,
  getData,
  IP,
  useAnalyticsApp,
  view,
  viewRow,
  visitorId,
  type CreatedTag,
} from './support.js';

/**
 * Records past the plan's history are deleted by the periodic job (Pro 1 year, Enterprise 3
 * years, organizations by their own plan); a deleted tag, or a purged sandbox tag, takes its
 * analytics with it.
 */
describe('analytics retention and deletion', () => {
  const t = useAnalyticsApp();

  type AnalyticsTable =
    | 'views'
    | 'tag_hourly'
    | 'tag_daily'
    | 'tag_daily_dimensions'
    | 'tag_visitor_hours'
    | 'tag_visitor_days'
    | 'tag_day_visitors'
    | 'tag_monthly'
    | 'tag_monthly_dimensions';

  /** Every analytics row of a tag, by table, reduced to its time key. */
  async function analyticsOf(tagId: string): Promise<Record<AnalyticsTable, string[]>> {
    const db = t.database.db;
    await rollUpViews(db);
    const [views, hourly, daily, dimensions, visitorHours, visitorDays, visitorSets, monthly, monthlyDimensions] = await Promise.all([
      db.selectFrom('views').select('occurred_at').where('tag_id', '=', tagId).orderBy('occurred_at').execute(),
      db.selectFrom('tag_hourly').select('hour').where('tag_id', '=', tagId).orderBy('hour').execute(),
      db.selectFrom('tag_daily').select('day').where('tag_id', '=', tagId).orderBy('day').execute(),
      db
        .selectFrom('tag_daily_dimensions')
        .select(['day', 'dimension'])
        .where('tag_id', '=', tagId)
        .orderBy('day')
        .orderBy('dimension')
        .execute(),
      db.selectFrom('tag_visitor_hours').select('hour').where('tag_id', '=', tagId).orderBy('hour').execute(),
      db.selectFrom('tag_visitor_days').select('day').where('tag_id', '=', tagId).orderBy('day').execute(),
      db.selectFrom('tag_day_visitors').select('day').where('tag_id', '=', tagId).orderBy('day').execute(),
      db.selectFrom('tag_monthly').select('month').where('tag_id', '=', tagId).orderBy('month').execute(),
      db
        .selectFrom('tag_monthly_dimensions')
        .select(['month', 'dimension'])
        .where('tag_id', '=', tagId)
        .orderBy('month')
        .orderBy('dimension')
        .execute(),
    ]);
    return {
      views: views.map((r) => r.occurred_at),
      tag_hourly: hourly.map((r) => r.hour),
      tag_daily: daily.map((r) => r.day),
      tag_daily_dimensions: dimensions.map((r) => `${r.day} ${r.dimension}`),
      tag_visitor_hours: visitorHours.map((r) => r.hour),
      tag_visitor_days: visitorDays.map((r) => r.day),
      tag_day_visitors: visitorSets.map((r) => r.day),
      tag_monthly: monthly.map((r) => r.month),
      tag_monthly_dimensions: monthlyDimensions.map((r) => `${r.month} ${r.dimension}`),
    };
  }

  const EMPTY = {
    views: [],
    tag_hourly: [],
    tag_daily: [],
    tag_daily_dimensions: [],
    tag_visitor_hours: [],
    tag_visitor_days: [],
    tag_day_visitors: [],
    tag_monthly: [],
    tag_monthly_dimensions: [],
  };

  /** The account's per-day totals (scope_daily), as day: views. */
  async function scopeDays(scopeId: string): Promise<Record<string, number>> {
    const rows = await t.database.db
      .selectFrom('scope_daily')
      .select(['day', 'views'])
      .where('scope_id', '=', scopeId)
      .orderBy('day')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.day, Number(r.views)]));
  }

  /** The days of the account's hours (scope_hourly), and the days and months of its breakdown rows. */
  async function scopeDimensionDays(scopeId: string) {
    const db = t.database.db;
    const [hourly, daily, monthly] = await Promise.all([
      db.selectFrom('scope_hourly').select('hour').where('scope_id', '=', scopeId).orderBy('hour').execute(),
      db.selectFrom('scope_daily_dimensions').select('day').distinct().where('scope_id', '=', scopeId).orderBy('day').execute(),
      db.selectFrom('scope_monthly_dimensions').select('month').distinct().where('scope_id', '=', scopeId).orderBy('month').execute(),
    ]);
    return { hours: hourly.map((r) => r.hour.slice(0, 10)), daily: daily.map((r) => r.day), monthly: monthly.map((r) => r.month) };
  }

  /** Every dimension a view is broken down by, in the order of the rollups' keys. */
  const DIMENSIONS = [...TAG_DIMENSIONS].sort();

  function runRetention() {
    return analyticsRetentionJob.run(t.services);
  }

  describe('the retention job', () => {
    let pro: Account;
    let ent: Account;
    let proTag: CreatedTag;
    let entTag: CreatedTag;
    let orgTag: CreatedTag;
    const D0 = '2026-01-10';
    // 400 days on, Pro keeps today and the 364 days before it.
    const RUN_DAY = addDays(D0, 400);
    const CUTOFF = addDays(RUN_DAY, -364);

    beforeAll(async () => {
      expect([RUN_DAY, CUTOFF]).toEqual(['2027-02-14', '2026-02-15']);
      t.clock.freeze(new Date(`${D0}T09:00:00.000Z`));
      pro = await createAccount(t, 'pro');
      ent = await createAccount(t, 'enterprise');
      // An organization on Pro owned by the Enterprise user: its tags follow the organization's plan.
      const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Pro org', ownerEmail: ent.email, plan: 'pro' });
      const orgKey = (await createKey(t, ent.email, { organizationId: org.id })).key;
      proTag = await createTag(t, pro.key, { title: 'Pro history' });
      entTag = await createTag(t, ent.key, { title: 'Enterprise history' });
      orgTag = await createTag(t, orgKey, { title: 'Org history' });

      const old = await view(t, proTag.short_id, { at: `${D0}T10:00:00.000Z`, ip: IP.london, visitor: visitorId('r1') });
      await expectBeaconAccepted(t, old, 30);
      await view(t, proTag.short_id, { at: `${addDays(CUTOFF, -1)}T23:59:59.999Z`, ip: IP.london, visitor: visitorId('r1') });
      await view(t, proTag.short_id, { at: `${CUTOFF}T00:00:00.000Z`, ip: IP.mountainView, visitor: visitorId('r2') });
      await view(t, entTag.short_id, { at: `${D0}T10:00:00.000Z`, ip: IP.london, visitor: visitorId('r3') });
      await view(t, orgTag.short_id, { at: `${D0}T10:00:00.000Z`, ip: IP.london, visitor: visitorId('r4') });
    });

    it('deletes nothing while every record is within its history', async () => {
      const before = await Promise.all([proTag, entTag, orgTag].map((tag) => analyticsOf(tag.id)));
      expect(before[0]!.views).toHaveLength(3);
      t.clock.freeze(new Date(`${addDays(D0, 30)}T12:00:00.000Z`));
      await runRetention();
      expect(await Promise.all([proTag, entTag, orgTag].map((tag) => analyticsOf(tag.id)))).toEqual(before);
    });

    it('400 days on: Pro (personal and organization) records before the oldest kept day go, Enterprise records stay', async () => {
      t.clock.freeze(new Date(`${RUN_DAY}T12:00:00.000Z`));
      // The days are closed into visitor sets first, as the seal job does every minute.
      expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(5);
      const entBefore = await analyticsOf(entTag.id);
      expect(await scopeDays(pro.userId)).toEqual({ [D0]: 1, [addDays(CUTOFF, -1)]: 1, [CUTOFF]: 1 });
      await runRetention();

      expect(await analyticsOf(proTag.id)).toEqual({
        views: [`${CUTOFF}T00:00:00.000Z`],
        tag_hourly: [`${CUTOFF}T00:00:00Z`],
        tag_daily: [CUTOFF],
        tag_daily_dimensions: DIMENSIONS.map((dimension) => `${CUTOFF} ${dimension}`),
        tag_visitor_hours: [],
        tag_visitor_days: [],
        tag_day_visitors: [CUTOFF],
        // The cutoff's month keeps its row (reports read a month's row only when the whole month is in the period).
        tag_monthly: ['2026-02-01'],
        // 02-14 (GB, purged) and 02-15 (US) are in the same month.
        tag_monthly_dimensions: DIMENSIONS.flatMap((dimension) =>
          dimension === 'country' || dimension === 'city'
            ? [`2026-02-01 ${dimension}`, `2026-02-01 ${dimension}`]
            : [`2026-02-01 ${dimension}`],
        ),
      });
      expect(await scopeDays(pro.userId)).toEqual({ [CUTOFF]: 1 });
      expect(await scopeDimensionDays(pro.userId)).toEqual({ hours: [CUTOFF], daily: [CUTOFF], monthly: ['2026-02-01'] });
      expect(await analyticsOf(orgTag.id)).toEqual(EMPTY);
      expect(await analyticsOf(entTag.id)).toEqual(entBefore);
      expect(entBefore.views).toEqual([`${D0}T10:00:00.000Z`]);

      // Running again changes nothing.
      await runRetention();
      expect((await analyticsOf(proTag.id)).views).toEqual([`${CUTOFF}T00:00:00.000Z`]);

      // What the reports show agrees.
      const proReport = await getData(t, pro.key, `/v1/tags/${proTag.id}/analytics`, { start_date: D0, granularity: 'month' });
      expect(proReport.period).toEqual({ start: CUTOFF, end: addDays(RUN_DAY, 1) });
      expect(proReport.summary).toEqual({
        total_views: 1,
        unique_views: 1,
        qr_scans: 0,
        direct_visits: 1,
        average_time_seconds: 0,
        bot_views: 0,
      });
      const entReport = await getData(t, ent.key, `/v1/tags/${entTag.id}/analytics`, { start_date: D0, granularity: 'month' });
      expect(entReport.period.start).toBe(D0);
      expect(entReport.summary).toEqual({
        total_views: 1,
        unique_views: 1,
        qr_scans: 0,
        direct_visits: 1,
        average_time_seconds: 0,
        bot_views: 0,
      });
      expect(entReport.by_country).toEqual({ GB: 1 });
    });

    it('past the longest history (Enterprise, 3 years) everything goes, and so do the numbers of visitors seen last before it', async () => {
      const keys = ['r1', 'r2', 'r3', 'r4'].map(visitorId);
      const numbered = () => t.database.db.selectFrom('visitors').select('key').where('key', 'in', keys).orderBy('key').execute();
      expect((await numbered()).map((r) => r.key)).toEqual([...keys].sort());
      t.clock.freeze(new Date(`${addDays(CUTOFF, 1095)}T12:00:00.000Z`));
      await runRetention();
      for (const tag of [proTag, entTag, orgTag]) expect(await analyticsOf(tag.id)).toEqual(EMPTY);
      expect(await numbered()).toEqual([]);
      expect(await scopeDays(pro.userId)).toEqual({});
      expect(await scopeDimensionDays(pro.userId)).toEqual({ hours: [], daily: [], monthly: [] });
    });
  });

  it('scopes with several tags: their daily totals lose exactly the days past the history, whichever of their tags held them', async () => {
    const D1 = '2031-03-01';
    const RUN = addDays(D1, 400);
    const cutoff = addDays(RUN, -364);
    t.clock.freeze(new Date(`${D1}T08:00:00.000Z`));
    // Two accounts, so that one run purges two scopes. In each, A has old and kept days, B old
    // days only, C a kept day only: the job finds A and B (their old rows), and the scope's own
    // old rows must go entirely, through either of them.
    const scopes = [];
    for (const name of ['x', 'y']) {
      const owner = await createAccount(t, 'pro');
      const [a, b, c] = [
        await createTag(t, owner.key, { title: 'A' }),
        await createTag(t, owner.key, { title: 'B' }),
        await createTag(t, owner.key, { title: 'C' }),
      ];
      const visits: Array<[CreatedTag, string]> = [
        [a, `${D1}T10:00:00.000Z`],
        [b, `${D1}T11:00:00.000Z`],
        [b, `${addDays(D1, 10)}T11:00:00.000Z`],
        [a, `${cutoff}T00:00:00.000Z`],
        [c, `${addDays(cutoff, 14)}T09:30:00.000Z`],
      ];
      for (const [i, [tag, at]] of visits.entries()) await view(t, tag.short_id, { at, ip: IP.london, visitor: visitorId(`${name}${i}`) });
      scopes.push({ owner, a, b, c });
    }
    t.clock.freeze(new Date(`${RUN}T12:00:00.000Z`));
    await closeVisitorDays(t.database.db, t.clock.now().getTime());
    for (const { owner } of scopes)
      expect(await scopeDays(owner.userId)).toEqual({ [D1]: 2, [addDays(D1, 10)]: 1, [cutoff]: 1, [addDays(cutoff, 14)]: 1 });

    await runRetention();

    for (const { owner, a, b, c } of scopes) {
      expect(await scopeDays(owner.userId)).toEqual({ [cutoff]: 1, [addDays(cutoff, 14)]: 1 });
      const sets = await t.database.db
        .selectFrom('scope_day_visitors')
        .select('day')
        .where('scope_id', '=', owner.userId)
        .orderBy('day')
        .execute();
      expect(sets.map((row) => row.day)).toEqual([cutoff, addDays(cutoff, 14)]);
      expect((await analyticsOf(a.id)).views).toEqual([`${cutoff}T00:00:00.000Z`]);
      expect(await analyticsOf(b.id)).toEqual(EMPTY);
      expect((await analyticsOf(c.id)).tag_daily).toEqual([addDays(cutoff, 14)]);
      // The overview (scope rows) and the export (tag rows) agree with what is left.
      const overview = await getData(t, owner.key, '/v1/analytics/overview', { start_date: D1 });
      expect(overview.period.start).toBe(cutoff);
      expect(overview.totals).toMatchObject({ views: 2, unique_views: 2, qr_scans: 0 });
      const csv = await get(t, owner.key, '/v1/analytics/export', { start_date: D1, format: 'csv' });
      expect(csv.text.trim().split('\n').slice(1)).toEqual([`${cutoff},${a.id},A,1,1,0,1`, `${addDays(cutoff, 14)},${c.id},C,1,1,0,1`]);
    }
  });

  it('a month that outlives its last old day goes in a later run, once the whole month is past', async () => {
    const DAY = '2036-01-20';
    t.clock.freeze(new Date(`${DAY}T08:00:00.000Z`));
    const owner = await createAccount(t, 'pro');
    const tag = await createTag(t, owner.key, { title: 'Month' });
    await view(t, tag.short_id, { at: `${DAY}T10:00:00.000Z`, ip: IP.london, visitor: visitorId('month') });
    // The cutoff is the next day: the view's day goes, its month (partly kept) stays.
    t.clock.freeze(new Date(`${addDays(DAY, 1 + 364)}T12:00:00.000Z`));
    await closeVisitorDays(t.database.db, t.clock.now().getTime());
    await runRetention();
    const month = '2036-01-01';
    expect(await analyticsOf(tag.id)).toEqual({
      ...EMPTY,
      tag_monthly: [month],
      tag_monthly_dimensions: DIMENSIONS.map((dimension) => `${month} ${dimension}`),
    });
    // Later the cutoff passes the month's end: nothing of the tag is older than the cutoff day
    // any more, yet its month is found and goes.
    t.clock.freeze(new Date(`${addDays('2036-02-01', 364)}T12:00:00.000Z`));
    await runRetention();
    expect(await analyticsOf(tag.id)).toEqual(EMPTY);
  });

  it('sandbox records past the plan history go as live ones do, and the sandbox keeps its kept days', async () => {
    const OLD = '2041-05-10';
    const KEPT = addDays(OLD, 20);
    t.clock.freeze(new Date(`${OLD}T08:00:00.000Z`));
    const owner = await createAccount(t, 'pro');
    const testKey = (await createKey(t, owner.email, { test: true })).key;
    const sandbox = await createTag(t, testKey, { title: 'Sandbox history' });
    await view(t, sandbox.short_id, { at: `${OLD}T10:00:00.000Z`, ip: IP.london, visitor: visitorId('sandbox-old') });
    await view(t, sandbox.short_id, { at: `${KEPT}T10:00:00.000Z`, ip: IP.london, visitor: visitorId('sandbox-kept') });
    // Pro keeps the run's day and the 364 before it: KEPT is the oldest kept day.
    t.clock.freeze(new Date(`${addDays(KEPT, 364)}T12:00:00.000Z`));
    await closeVisitorDays(t.database.db, t.clock.now().getTime());
    const scopeRows = () =>
      t.database.db.selectFrom('scope_daily').select(['environment', 'day']).where('scope_id', '=', owner.userId).orderBy('day').execute();
    expect(await scopeRows()).toEqual([
      { environment: 'test', day: OLD },
      { environment: 'test', day: KEPT },
    ]);

    await runRetention();

    const month = '2041-05-01';
    expect(await analyticsOf(sandbox.id)).toEqual({
      views: [`${KEPT}T10:00:00.000Z`],
      tag_hourly: [`${KEPT}T10:00:00Z`],
      tag_daily: [KEPT],
      tag_daily_dimensions: DIMENSIONS.map((dimension) => `${KEPT} ${dimension}`),
      tag_visitor_hours: [],
      tag_visitor_days: [],
      tag_day_visitors: [KEPT],
      tag_monthly: [month],
      tag_monthly_dimensions: DIMENSIONS.map((dimension) => `${month} ${dimension}`),
    });
    expect(await scopeRows()).toEqual([{ environment: 'test', day: KEPT }]);
  });

  it('deleting a tag deletes its views and rollups; its analytics answer 404 and the overview forgets it', async () => {
    const owner = await createAccount(t, 'pro');
    t.clock.freeze(new Date('2027-03-01T09:00:00.000Z'));
    const kept = await createTag(t, owner.key, { title: 'Kept' });
    const doomed = await createTag(t, owner.key, { title: 'Doomed' });
    await view(t, kept.short_id, { at: '2027-03-01T10:00:00.000Z', visitor: visitorId('k1') });
    const token = await view(t, doomed.short_id, { at: '2027-03-01T10:00:00.000Z', scan: true, ip: IP.london, visitor: visitorId('d1') });
    await view(t, doomed.short_id, { at: '2027-03-02T10:00:00.000Z', visitor: visitorId('d2') });
    await expectBeaconAccepted(t, token, 12);
    t.clock.freeze(new Date('2027-03-03T09:00:00.000Z'));
    expect((await analyticsOf(doomed.id)).views).toHaveLength(2);
    expect((await getData(t, owner.key, '/v1/analytics/overview')).totals.views).toBe(3);

    expect((await request(t, 'DELETE', `/v1/tags/${doomed.id}`, { key: owner.key })).status).toBe(200);
    expect(await analyticsOf(doomed.id)).toEqual(EMPTY);
    expect((await analyticsOf(kept.id)).views).toHaveLength(1);
    for (const path of ['analytics', 'analytics/views', 'analytics/logs']) {
      expectError(await get(t, owner.key, `/v1/tags/${doomed.id}/${path}`), 404, 'not_found');
    }
    const overview = await getData(t, owner.key, '/v1/analytics/overview');
    expect(overview.totals).toMatchObject({ views: 1, unique_views: 1, qr_scans: 0 });
    expect(overview.top_tags).toEqual([{ id: kept.id, title: 'Kept', views: 1 }]);
    expectError(await get(t, owner.key, '/v1/analytics/export', { tag_ids: doomed.id }), 404, 'not_found');
  });

  it('a view recorded while its tag was being deleted (the page had found the tag just before) goes when rolled up', async () => {
    const owner = await createAccount(t, 'pro');
    const gone = await createTag(t, owner.key, { title: 'Gone' });
    expect((await request(t, 'DELETE', `/v1/tags/${gone.id}`, { key: owner.key })).status).toBe(200);
    const late = viewRow({ id: gone.id, ownerId: owner.userId }, t.clock.now().toISOString(), visitorId('late'));
    await new ViewRecorder(t.database.db, t.app.log).record(late);
    expect(await rollUpViews(t.database.db)).toBe(1);
    expect(await t.database.db.selectFrom('views').select('id').where('id', '=', late.id).execute()).toEqual([]);
    expect(await analyticsOf(gone.id)).toEqual(EMPTY);
  });

  it('the sandbox purge takes the analytics of purged test tags, and leaves live ones', async () => {
    const owner = await createAccount(t, 'pro');
    const testKey = (await createKey(t, owner.email, { test: true })).key;
    t.clock.freeze(new Date('2027-04-01T09:00:00.000Z'));
    const sandboxTag = await createTag(t, testKey, { title: 'Sandbox' });
    const liveTag = await createTag(t, owner.key, { title: 'Live' });
    await view(t, sandboxTag.short_id, { at: '2027-04-01T10:00:00.000Z', visitor: visitorId('s1') });
    await view(t, liveTag.short_id, { at: '2027-04-01T10:00:00.000Z', visitor: visitorId('s2') });
    await rollUpViews(t.database.db);
    const row = await t.database.db.selectFrom('views').select('environment').where('tag_id', '=', sandboxTag.id).executeTakeFirstOrThrow();
    expect(row.environment).toBe('test');
    expect((await getData(t, testKey, '/v1/analytics/overview')).totals.views).toBe(1);

    t.clock.freeze(new Date('2027-05-02T10:00:00.000Z'));
    // The days close first, as the seal job does: the test scope has a visitor set for 04-01.
    await closeVisitorDays(t.database.db, t.clock.now().getTime());
    const scopeSets = () =>
      t.database.db
        .selectFrom('scope_day_visitors')
        .select(['environment', 'day', 'stale'])
        .where('scope_id', '=', owner.userId)
        .orderBy('environment')
        .execute();
    expect(await scopeSets()).toEqual([
      { environment: 'live', day: '2027-04-01', stale: 0 },
      { environment: 'test', day: '2027-04-01', stale: 0 },
    ]);
    await sandboxPurgeJob.run(t.services);
    expect(await analyticsOf(sandboxTag.id)).toEqual(EMPTY);
    expect((await analyticsOf(liveTag.id)).views).toEqual(['2027-04-01T10:00:00.000Z']);
    // The test scope's set no longer counts the purged tag's visitor, and goes once rebuilt.
    expect(
      (await getData(t, testKey, '/v1/analytics/overview', { start_date: '2027-04-01', end_date: '2027-04-02' })).totals,
    ).toMatchObject({ views: 0, unique_views: 0 });
    await closeVisitorDays(t.database.db, t.clock.now().getTime());
    expect(await scopeSets()).toEqual([{ environment: 'live', day: '2027-04-01', stale: 0 }]);
    expect(
      (await getData(t, owner.key, '/v1/analytics/overview', { start_date: '2027-04-01', end_date: '2027-04-02' })).totals,
    ).toMatchObject({ views: 1, unique_views: 1 });
  });
});
