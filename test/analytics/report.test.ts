import { beforeAll, describe, expect, it } from 'vitest';
import { locate } from '../../src/features/analytics/geo.js';
import { closeVisitorDays } from '../../src/features/analytics/sealing.js';
import { expectError } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import {
  addDays,
  createTag,
  daysBetween,
  expectBeaconAccepted,
  get,
  getData,
  IP,
  useAnalyticsApp,
  UA,
  view,
  visit,
  visitorId,
  type CreatedTag,
} from './support.js';

/**
 * GET /v1/tags/{id}/analytics: known views in, exact numbers out — summary, breakdowns (with
 * `other`), every granularity's zero-filled buckets, uniques across buckets, and the period
 * rules (half-open days, defaults, errors, plan history clamp). Twice: with every day's
 * visitors still open, and with the past days closed into visitor sets by the seal job.
 */
describe.each(['open', 'closed'] as const)('tag analytics report (past days %s)', (days) => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'enterprise');
  let tag: CreatedTag;
  const V1 = visitorId('v1');
  const V2 = visitorId('v2');
  const TODAY = '2026-03-10';

  function report(query: Record<string, string | undefined>, key = alice.key, id = tag.id) {
    return getData(t, key, `/v1/tags/${id}/analytics`, query);
  }

  /** The timeseries of a period with the given non-zero buckets, every other bucket zero. */
  function series(keys: string[], nonZero: Record<string, [number, number]>) {
    for (const key of Object.keys(nonZero)) expect(keys, `bucket ${key} is in the period`).toContain(key);
    return keys.map((date) => ({ date, views: nonZero[date]?.[0] ?? 0, unique: nonZero[date]?.[1] ?? 0 }));
  }

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-02-20T09:00:00.000Z'));
    tag = await createTag(t, alice.key, { title: 'Report' });
    const s = tag.short_id;

    const v0 = await view(t, s, { at: '2026-02-28T23:30:00.000Z', ua: UA.iphone, ip: IP.london, visitor: V1 });
    const v1 = await view(t, s, { at: '2026-03-02T10:15:00.000Z', ua: UA.iphone, ip: IP.london, visitor: V1 });
    await view(t, s, { at: '2026-03-02T10:45:00.000Z', scan: true, ua: UA.iphone, ip: IP.london, visitor: V1 });
    const v3 = await view(t, s, {
      at: '2026-03-02T23:59:59.999Z',
      ua: UA.chromeWindows,
      ip: IP.mountainView,
      visitor: V2,
      referer: 'https://news.example.com/story',
    });
    await view(t, s, { at: '2026-03-03T00:00:00.000Z', scan: true, ua: UA.ipad, visitor: V2 });
    const v5 = await view(t, s, { at: '2026-03-04T12:00:00.000Z', ua: UA.firefoxLinux, ip: IP.sydney });
    await view(t, s, { at: '2026-03-04T12:30:00.000Z', ua: UA.firefoxLinux, ip: IP.sydney });
    await view(t, s, { at: '2026-03-09T08:00:00.000Z', scan: true, ua: UA.iphone, ip: IP.london, visitor: V1 });

    // Not counted: bots (page and scan address), a HEAD request.
    await visit(t, s, { at: '2026-03-02T11:00:00.000Z', ua: UA.googlebot, ip: IP.london });
    await visit(t, s, { at: '2026-03-03T09:00:00.000Z', ua: UA.curl, scan: true });
    await visit(t, s, { at: '2026-03-04T13:00:00.000Z', ua: null, ip: IP.sydney });
    await visit(t, s, { at: '2026-03-02T12:00:00.000Z', method: 'HEAD', ip: IP.london, visitor: V1 });

    await expectBeaconAccepted(t, v0, 100);
    await expectBeaconAccepted(t, v1, 20);
    await expectBeaconAccepted(t, v1, 50);
    await expectBeaconAccepted(t, v1, 10);
    await expectBeaconAccepted(t, v3, 25);
    await expectBeaconAccepted(t, v5, 7);
    t.clock.freeze(new Date(`${TODAY}T12:00:00.000Z`));
    if (days === 'closed') {
      // 2026-02-28, 03-02, 03-03, 03-04 and 03-09.
      expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(5);
      expect(await t.database.db.selectFrom('tag_visitor_days').selectAll().execute()).toEqual([]);
    }
  });

  it('summary, breakdowns and daily series of a period, exactly', async () => {
    const data = await report({ start_date: '2026-03-02', end_date: '2026-03-10' });
    expect(data).toEqual({
      tag_id: tag.id,
      period: { start: '2026-03-02', end: '2026-03-10' },
      timezone: 'UTC',
      // Views 1-7; visitors V1, V2 and the cookie-less Firefox; (50 + 25 + 7) / 3 seconds.
      summary: { total_views: 7, unique_views: 3, qr_scans: 3, direct_visits: 3, average_time_seconds: 27, bot_views: 3 },
      by_device: { mobile: 3, desktop: 3, tablet: 1 },
      by_country: { GB: 3, AU: 2, US: 1, other: 1 },
      by_browser: { 'Mobile Safari': 4, Firefox: 2, Chrome: 1 },
      by_referrer: { direct: 6, 'news.example.com': 1 },
      by_os: { iOS: 4, Linux: 2, Windows: 1 },
      by_city: [
        { city: 'London', country: 'GB', views: 3 },
        { city: 'Sydney', country: 'AU', views: 2 },
        { city: 'Mountain View', country: 'US', views: 1 },
        { city: 'unknown', country: null, views: 1 },
      ],
      by_utm_source: { unknown: 7 },
      by_utm_medium: { unknown: 7 },
      by_utm_campaign: { unknown: 7 },
      timeseries: series(daysBetween('2026-03-02', '2026-03-10'), {
        '2026-03-02': [3, 2],
        '2026-03-03': [1, 1],
        '2026-03-04': [2, 1],
        '2026-03-09': [1, 1],
      }),
    });
    expect(data.timeseries).toHaveLength(8);
    // The short id reaches the same report.
    expect(await report({ start_date: '2026-03-02', end_date: '2026-03-10' }, alice.key, tag.short_id)).toEqual(data);
  });

  it('the period is half-open: a view at 23:59:59.999 belongs to its day, one at 00:00 to the next', async () => {
    const day = await report({ start_date: '2026-03-03', end_date: '2026-03-04' });
    expect(day.summary).toEqual({ total_views: 1, unique_views: 1, qr_scans: 1, direct_visits: 0, average_time_seconds: 0, bot_views: 1 });
    expect(day.by_device).toEqual({ mobile: 0, desktop: 0, tablet: 1 });
    expect(day.by_country).toEqual({ other: 1 });
    expect(day.by_browser).toEqual({ 'Mobile Safari': 1 });
    expect(day.timeseries).toEqual([{ date: '2026-03-03', views: 1, unique: 1 }]);
  });

  it('default: the last 30 days up to and including today, by day', async () => {
    const data = await report({});
    expect(data.period).toEqual({ start: '2026-02-09', end: '2026-03-11' });
    expect(data.summary).toEqual({
      total_views: 8,
      unique_views: 3,
      qr_scans: 3,
      direct_visits: 4,
      average_time_seconds: 46,
      bot_views: 3,
    });
    expect(data.timeseries).toEqual(
      series(daysBetween('2026-02-09', '2026-03-11'), {
        '2026-02-28': [1, 1],
        '2026-03-02': [3, 2],
        '2026-03-03': [1, 1],
        '2026-03-04': [2, 1],
        '2026-03-09': [1, 1],
      }),
    );
    expect(data.timeseries).toHaveLength(30);
    // Only end_date: the 30 days before it. Only start_date: up to today.
    expect((await report({ end_date: '2026-03-03' })).period).toEqual({ start: '2026-02-01', end: '2026-03-03' });
    expect((await report({ start_date: '2026-03-09' })).period).toEqual({ start: '2026-03-09', end: '2026-03-11' });
    expect((await report({ start_date: '2026-03-09' })).summary.total_views).toBe(1);
  });

  it('hour buckets: YYYY-MM-DDTHH:00:00Z, every hour of the period', async () => {
    const data = await report({ start_date: '2026-03-02', end_date: '2026-03-03', granularity: 'hour' });
    const hours = Array.from({ length: 24 }, (_, h) => `2026-03-02T${String(h).padStart(2, '0')}:00:00Z`);
    expect(data.timeseries).toEqual(series(hours, { '2026-03-02T10:00:00Z': [2, 1], '2026-03-02T23:00:00Z': [1, 1] }));
    expect(data.summary).toEqual({
      total_views: 3,
      unique_views: 2,
      qr_scans: 1,
      direct_visits: 1,
      average_time_seconds: 38,
      bot_views: 1,
    });
    expect(data.by_device).toEqual({ mobile: 2, desktop: 1, tablet: 0 });
    expect(data.by_country).toEqual({ GB: 2, US: 1 });
    expect(data.by_browser).toEqual({ 'Mobile Safari': 2, Chrome: 1 });

    const two = await report({ start_date: '2026-03-03', end_date: '2026-03-05', granularity: 'hour' });
    expect(two.timeseries).toHaveLength(48);
    expect(two.timeseries.filter((b: { views: number }) => b.views > 0)).toEqual([
      { date: '2026-03-03T00:00:00Z', views: 1, unique: 1 },
      { date: '2026-03-04T12:00:00Z', views: 2, unique: 1 },
    ]);
  });

  it('week buckets are ISO weeks keyed by their Monday, the first one before a mid-week start', async () => {
    // 2026-03-04 is a Wednesday: its week's bucket is Monday 2026-03-02.
    const fromWednesday = await report({ start_date: '2026-03-04', end_date: '2026-03-12', granularity: 'week' });
    expect(fromWednesday.timeseries).toEqual([
      { date: '2026-03-02', views: 2, unique: 1 },
      { date: '2026-03-09', views: 1, unique: 1 },
    ]);
    expect(fromWednesday.summary).toEqual({
      total_views: 3,
      unique_views: 2,
      qr_scans: 1,
      direct_visits: 2,
      average_time_seconds: 7,
      bot_views: 1,
    });

    const fromMonday = await report({ start_date: '2026-03-02', end_date: '2026-03-10', granularity: 'week' });
    expect(fromMonday.timeseries).toEqual([
      { date: '2026-03-02', views: 6, unique: 3 },
      { date: '2026-03-09', views: 1, unique: 1 },
    ]);

    // A week across a month edge: Monday 2026-02-23 holds Saturday 2026-02-28.
    const acrossMonths = await report({ start_date: '2026-02-25', end_date: '2026-03-03', granularity: 'week' });
    expect(acrossMonths.timeseries).toEqual([
      { date: '2026-02-23', views: 1, unique: 1 },
      { date: '2026-03-02', views: 3, unique: 2 },
    ]);
    expect(acrossMonths.summary).toEqual({
      total_views: 4,
      unique_views: 2,
      qr_scans: 1,
      direct_visits: 2,
      average_time_seconds: 58,
      bot_views: 1,
    });

    // Across a year edge, zero-filled: Wednesday 2025-12-31 is in the week of Monday 2025-12-29.
    const acrossYears = await report({ start_date: '2025-12-31', end_date: '2026-01-06', granularity: 'week' });
    expect(acrossYears.timeseries).toEqual([
      { date: '2025-12-29', views: 0, unique: 0 },
      { date: '2026-01-05', views: 0, unique: 0 },
    ]);
  });

  it('month buckets are keyed by the first day; a visitor counts once per bucket and once in the summary', async () => {
    const whole = await report({ start_date: '2026-02-01', end_date: '2026-04-01', granularity: 'month' });
    expect(whole.timeseries).toEqual([
      { date: '2026-02-01', views: 1, unique: 1 },
      { date: '2026-03-01', views: 7, unique: 3 },
    ]);
    expect(whole.summary).toEqual({
      total_views: 8,
      unique_views: 3,
      qr_scans: 3,
      direct_visits: 4,
      average_time_seconds: 46,
      bot_views: 3,
    });

    const partial = await report({ start_date: '2026-02-15', end_date: '2026-03-05', granularity: 'month' });
    expect(partial.timeseries).toEqual([
      { date: '2026-02-01', views: 1, unique: 1 },
      { date: '2026-03-01', views: 6, unique: 3 },
    ]);
    expect(partial.summary).toEqual({
      total_views: 7,
      unique_views: 3,
      qr_scans: 2,
      direct_visits: 4,
      average_time_seconds: 46,
      bot_views: 3,
    });

    const acrossYears = await report({ start_date: '2025-12-15', end_date: '2026-01-15', granularity: 'month' });
    expect(acrossYears.timeseries).toEqual([
      { date: '2025-12-01', views: 0, unique: 0 },
      { date: '2026-01-01', views: 0, unique: 0 },
    ]);

    // V1 viewed on three days: one unique in the summary, one in each day's bucket.
    const days = await report({ start_date: '2026-02-28', end_date: '2026-03-10' });
    expect(days.summary.unique_views).toBe(3);
    const dailyUniques = days.timeseries.reduce((sum: number, b: { unique: number }) => sum + b.unique, 0);
    expect(dailyUniques).toBe(6);
  });

  it('at most 1000 buckets, else 400 validation_error on granularity', async () => {
    // 41 days of hours (984 buckets) pass; 42 days (1008) do not.
    const hours = await report({ start_date: '2026-01-29', end_date: '2026-03-11', granularity: 'hour' });
    expect(hours.timeseries).toHaveLength(984);
    expect(hours.timeseries[0].date).toBe('2026-01-29T00:00:00Z');
    expect(hours.timeseries.at(-1).date).toBe('2026-03-10T23:00:00Z');
    expect(hours.summary.total_views).toBe(8);
    expectError(
      await get(t, alice.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-01-28', end_date: '2026-03-11', granularity: 'hour' }),
      400,
      'validation_error',
      'granularity',
    );
    // A far end date in days; in weeks it is fine.
    expectError(
      await get(t, alice.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-03-01', end_date: '2029-01-01' }),
      400,
      'validation_error',
      'granularity',
    );
    expect((await report({ start_date: '2026-03-01', end_date: '2029-01-01', granularity: 'week' })).timeseries).toHaveLength(149);

    // Exactly 1000 days pass on Enterprise (3 years of history); 1001 do not.
    const bobTag = await createTag(t, bob.key);
    const thousand = await report({ start_date: addDays(TODAY, -999), end_date: addDays(TODAY, 1) }, bob.key, bobTag.id);
    expect(thousand.timeseries).toHaveLength(1000);
    expect(thousand.period).toEqual({ start: addDays(TODAY, -999), end: '2026-03-11' });
    expectError(
      await get(t, bob.key, `/v1/tags/${bobTag.id}/analytics`, { start_date: addDays(TODAY, -1000), end_date: addDays(TODAY, 1) }),
      400,
      'validation_error',
      'granularity',
    );
  });

  it('bad dates: 400 invalid_date_range when end is not after start, 400 validation_error naming a malformed date', async () => {
    const path = `/v1/tags/${tag.id}/analytics`;
    expectError(await get(t, alice.key, path, { start_date: '2026-03-05', end_date: '2026-03-05' }), 400, 'invalid_date_range');
    expectError(await get(t, alice.key, path, { start_date: '2026-03-05', end_date: '2026-03-04' }), 400, 'invalid_date_range');
    expectError(await get(t, alice.key, path, { start_date: '2026-03-12' }), 400, 'invalid_date_range');
    for (const bad of ['2026-02-30', 'yesterday', '2026-3-1', '2026-03-01T00:00:00Z', '20260301', '']) {
      expectError(await get(t, alice.key, path, { start_date: bad, end_date: '2026-03-10' }), 400, 'validation_error', 'start_date');
      expectError(await get(t, alice.key, path, { start_date: '2026-03-01', end_date: bad }), 400, 'validation_error', 'end_date');
    }
    expectError(await get(t, alice.key, path, { granularity: 'year' }), 400, 'validation_error', 'granularity');
    for (const sub of ['views']) {
      expectError(await get(t, alice.key, `${path}/${sub}`, { start_date: 'yesterday' }), 400, 'validation_error', 'start_date');
      expectError(
        await get(t, alice.key, `${path}/${sub}`, { start_date: '2026-03-02', end_date: '2026-03-01' }),
        400,
        'invalid_date_range',
      );
    }
    for (const sub of ['logs']) {
      expectError(await get(t, alice.key, `${path}/${sub}`, { end_date: '2026-13-01' }), 400, 'validation_error', 'end_date');
      expectError(await get(t, alice.key, `${path}/${sub}`, { limit: 0 }), 400, 'validation_error', 'limit');
      expectError(await get(t, alice.key, `${path}/${sub}`, { offset: 'x' }), 400, 'validation_error', 'offset');
    }
    expectError(await get(t, alice.key, `${path}/views`, { end_date: '2026-03-1' }), 400, 'validation_error', 'end_date');
    for (const account of ['/v1/analytics/overview', '/v1/analytics/export']) {
      expectError(await get(t, alice.key, account, { start_date: '03/01/2026' }), 400, 'validation_error', 'start_date');
      expectError(await get(t, alice.key, account, { end_date: '2026-02-30' }), 400, 'validation_error', 'end_date');
      expectError(await get(t, alice.key, account, { start_date: '2026-03-02', end_date: '2026-03-02' }), 400, 'invalid_date_range');
      expectError(await get(t, alice.key, account, { start_date: '2026-03-02', end_date: '2026-03-01' }), 400, 'invalid_date_range');
    }
  });

  it('a start older than the plan history moves up to the oldest kept day, and older views are left out', async () => {
    const old = await createTag(t, alice.key, { title: 'Old views' });
    // Pro keeps 365 days: today and the 364 before it, so 2025-03-11 is the oldest kept day.
    await view(t, old.short_id, { at: '2025-03-10T23:59:59.999Z', ip: IP.london });
    await view(t, old.short_id, { at: '2025-03-11T00:00:00.000Z', ip: IP.mountainView });
    t.clock.freeze(new Date(`${TODAY}T12:00:00.000Z`));

    const data = await report({ start_date: '2024-03-10', end_date: '2026-03-11' }, alice.key, old.id);
    expect(data.period).toEqual({ start: '2025-03-11', end: '2026-03-11' });
    expect(data.timeseries).toHaveLength(365);
    expect(data.timeseries[0]).toEqual({ date: '2025-03-11', views: 1, unique: 1 });
    expect(data.summary.total_views).toBe(1);
    expect(data.by_country).toEqual({ US: 1 });

    const views = await getData(t, alice.key, `/v1/tags/${old.id}/analytics/views`, { start_date: '2024-03-10' });
    expect(views.views.map((v: { timestamp: string }) => v.timestamp)).toEqual(['2025-03-11T00:00:00.000Z']);
    const overview = await getData(t, alice.key, '/v1/analytics/overview', { start_date: '2024-03-10' });
    expect(overview.period).toEqual({ start: '2025-03-11', end: '2026-03-11' });
    const exported = await get(t, alice.key, '/v1/analytics/export', {
      start_date: '2024-03-10',
      format: 'json',
      include: 'summary,views',
      tag_ids: old.id,
    });
    expect(exported.body.data.period).toEqual({ start: '2025-03-11', end: '2026-03-11' });
    expect(exported.body.data.rows.map((r: { date: string; views: number }) => [r.date, r.views])).toEqual([['2025-03-11', 1]]);
    expect(exported.body.data.views.map((v: { timestamp: string }) => v.timestamp)).toEqual(['2025-03-11T00:00:00.000Z']);

    // Enterprise keeps three years: the same start date is used as given.
    const bobTag = await createTag(t, bob.key);
    const enterprise = await report({ start_date: '2024-03-10', end_date: '2026-03-11' }, bob.key, bobTag.id);
    expect(enterprise.period).toEqual({ start: '2024-03-10', end: '2026-03-11' });
    expect(enterprise.timeseries).toHaveLength(731);
    const clamped = await report({ start_date: '2020-01-01', granularity: 'month' }, bob.key, bobTag.id);
    expect(clamped.period).toEqual({ start: addDays(TODAY, -1094), end: '2026-03-11' });
    // The overview has no granularity: its daily series covers the whole three years.
    const history = await getData(t, bob.key, '/v1/analytics/overview', { start_date: '2020-01-01' });
    expect(history.period).toEqual({ start: addDays(TODAY, -1094), end: '2026-03-11' });
    expect(history.by_day).toHaveLength(1095);
    expect(history.by_day[0]).toEqual({ date: addDays(TODAY, -1094), views: 0, scans: 0 });
    expect(history.by_day.at(-1).date).toBe(TODAY);
    // Up to a year ahead of that; further is refused, naming the date to move.
    expect(
      (await getData(t, bob.key, '/v1/analytics/overview', { start_date: '2020-01-01', end_date: addDays(TODAY, 367) })).by_day,
    ).toHaveLength(1461);
    expectError(
      await get(t, bob.key, '/v1/analytics/overview', { start_date: '2020-01-01', end_date: addDays(TODAY, 368) }),
      400,
      'validation_error',
      'end_date',
    );

    // A period that ends before the oldest kept day would be empty: refused, saying why.
    const gone = await get(t, alice.key, `/v1/tags/${old.id}/analytics`, { start_date: '2024-01-01', end_date: '2025-03-11' });
    expectError(gone, 400, 'invalid_date_range');
    expect(gone.body.error.message).toContain('2025-03-11');
  });

  it('breakdowns list the ten largest countries and browsers and sum the rest, unknowns included, under other', async () => {
    const many = await createTag(t, alice.key, { title: 'Worldwide' });
    const countries: Array<[string, string | null, number]> = [
      ['81.2.69.142', 'GB', 12],
      ['8.8.8.8', 'US', 11],
      ['1.1.1.1', 'AU', 10],
      ['5.9.0.1', 'DE', 9],
      ['31.13.64.1', 'IN', 8],
      ['51.15.0.1', 'NL', 7],
      ['77.88.8.8', 'RU', 6],
      ['101.0.0.1', 'CN', 5],
      ['103.21.244.1', 'CA', 4],
      ['130.104.0.1', 'BE', 3],
      ['133.242.0.1', 'JP', 2],
      ['163.172.0.1', 'FR', 1],
      // No location: the largest group of all, still summed under other.
      ['127.0.0.1', null, 20],
    ];
    for (const [ip, country] of countries) expect((await locate(ip)).country, ip).toBe(country);
    const browsers: Array<[string, number]> = [
      [UA.unknown, 25],
      [UA.iphone, 12],
      [UA.chromeWindows, 11],
      [UA.firefoxLinux, 10],
      [UA.safariMac, 9],
      [UA.edge, 8],
      [UA.opera, 7],
      [UA.samsung, 6],
      [UA.yandex, 4],
      [UA.vivaldi, 3],
      [UA.ucbrowser, 2],
      [UA.ie, 1],
    ];
    const ips = countries.flatMap(([ip, , n]) => Array<string>(n).fill(ip));
    const uas = browsers.flatMap(([ua, n]) => Array<string>(n).fill(ua));
    expect(ips).toHaveLength(98);
    expect(uas).toHaveLength(98);

    t.clock.freeze(new Date('2026-03-05T15:00:00.000Z'));
    for (let i = 0; i < ips.length; i += 14) {
      await Promise.all(
        ips.slice(i, i + 14).map((ip, j) => view(t, many.short_id, { ip, ua: uas[i + j], visitor: visitorId(`w${i + j}`) })),
      );
    }
    t.clock.freeze(new Date(`${TODAY}T12:00:00.000Z`));

    const data = await report({ start_date: '2026-03-05', end_date: '2026-03-06' }, alice.key, many.id);
    expect(data.summary).toEqual({
      total_views: 98,
      unique_views: 98,
      qr_scans: 0,
      direct_visits: 98,
      average_time_seconds: 0,
      bot_views: 0,
    });
    expect(data.by_country).toEqual({ GB: 12, US: 11, AU: 10, DE: 9, IN: 8, NL: 7, RU: 6, CN: 5, CA: 4, BE: 3, other: 2 + 1 + 20 });
    expect(data.by_browser).toEqual({
      'Mobile Safari': 12,
      Chrome: 11,
      Firefox: 10,
      Safari: 9,
      Edge: 8,
      Opera: 7,
      'Samsung Internet': 6,
      Yandex: 4,
      Vivaldi: 3,
      UCBrowser: 2,
      other: 1 + 25,
    });
    expect(data.by_device).toEqual({ mobile: 12 + 6 + 2, desktop: 98 - 20, tablet: 0 });
    expect(data.timeseries).toEqual([{ date: '2026-03-05', views: 98, unique: 98 }]);
  });
});
