import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, get, getData, IP, useAnalyticsApp, UA, view, visitorId, type CreatedTag } from './support.js';

/**
 * `timezone` on the tag report and the clicks report: periods, day, week, month and hour
 * buckets and their keys in the zone, exact views and breakdowns at the period's ends (a view at
 * 23:30 UTC is the next day in Berlin), daylight saving time, a zone half an hour off UTC, and
 * unknown zones refused.
 */
describe('analytics in a time zone', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  let tag: CreatedTag;
  const [V1, V2, V3] = ['z1', 'z2', 'z3'].map(visitorId);

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-02-20T08:00:00.000Z'));
    tag = await createTag(t, alice.key, {
      title: 'Zoned',
      content: [{ type: 'link', url: 'https://example.com/menu', label: 'Menu' }],
    });
    const s = tag.short_id;
    // 2026-03-02 23:30 UTC is 2026-03-03 00:30 in Berlin (+01:00).
    await view(t, s, { at: '2026-03-02T23:30:00.000Z', ua: UA.chromeWindows, ip: IP.london, visitor: V1 });
    // Midday on the 3rd, both in UTC and in Berlin.
    await view(t, s, { at: '2026-03-03T12:00:00.000Z', ua: UA.iphone, ip: IP.sydney, visitor: V2 });
    // 2026-03-03 23:30 UTC is the 4th in Berlin.
    await view(t, s, { at: '2026-03-03T23:30:00.000Z', ua: UA.firefoxLinux, ip: IP.mountainView, visitor: V3 });
    // Daylight saving time starts in Berlin on 2026-03-29 at 01:00 UTC (02:00 → 03:00).
    await view(t, s, { at: '2026-03-29T00:30:00.000Z', visitor: V1 });
    await view(t, s, { at: '2026-03-29T01:30:00.000Z', visitor: V1 });
    t.clock.freeze(new Date('2026-04-10T08:00:00.000Z'));
  });

  const report = (query: Record<string, string>) => getData(t, alice.key, `/v1/tags/${tag.id}/analytics`, query);
  const MARCH_3 = { start_date: '2026-03-03', end_date: '2026-03-04' };

  it('a view at 23:30 UTC lands on the next day in Europe/Berlin', async () => {
    const utc = await report({ start_date: '2026-03-02', end_date: '2026-03-05' });
    expect(utc.timezone).toBe('UTC');
    expect(utc.timeseries).toEqual([
      { date: '2026-03-02', views: 1, unique: 1 },
      { date: '2026-03-03', views: 2, unique: 2 },
      { date: '2026-03-04', views: 0, unique: 0 },
    ]);
    const berlin = await report({ start_date: '2026-03-02', end_date: '2026-03-05', timezone: 'Europe/Berlin' });
    expect(berlin.timezone).toBe('Europe/Berlin');
    expect(berlin.period).toEqual({ start: '2026-03-02', end: '2026-03-05' });
    expect(berlin.timeseries.map((b: { date: string; views: number }) => [b.date, b.views])).toEqual([
      ['2026-03-02', 0],
      ['2026-03-03', 2],
      ['2026-03-04', 1],
    ]);
  });

  it('counts views, visitors and breakdowns of the zone’s day exactly, the hours at its ends included', async () => {
    const day = await report({ ...MARCH_3, timezone: 'Europe/Berlin' });
    expect(day.summary).toMatchObject({ total_views: 2, unique_views: 2, qr_scans: 0, direct_visits: 2 });
    // The Windows view of 23:30 UTC the day before is in; the Linux view of 23:30 UTC is not.
    expect(day.by_os).toEqual({ Windows: 1, iOS: 1 });
    expect(day.by_city).toEqual([
      { city: 'Sydney', country: 'AU', views: 1 },
      { city: 'London', country: 'GB', views: 1 },
    ]);
    expect(day.by_device).toEqual({ mobile: 1, desktop: 1, tablet: 0 });
    // The same day in UTC holds the other two.
    const utcDay = await report(MARCH_3);
    expect(utcDay.by_os).toEqual({ iOS: 1, Linux: 1 });
  });

  it('keys hours by local time with the offset, and a day of daylight saving time has 23 of them', async () => {
    const hours = await report({ ...MARCH_3, granularity: 'hour', timezone: 'Europe/Berlin' });
    expect(hours.timeseries).toHaveLength(24);
    expect(hours.timeseries[0]).toEqual({ date: '2026-03-03T00:00:00+01:00', views: 1, unique: 1 });
    expect(hours.timeseries[13]).toEqual({ date: '2026-03-03T13:00:00+01:00', views: 1, unique: 1 });
    const spring = await report({ start_date: '2026-03-29', end_date: '2026-03-30', granularity: 'hour', timezone: 'Europe/Berlin' });
    const keys = spring.timeseries.map((b: { date: string }) => b.date);
    expect(keys).toHaveLength(23);
    expect(keys.slice(0, 4)).toEqual([
      '2026-03-29T00:00:00+01:00',
      '2026-03-29T01:00:00+01:00',
      '2026-03-29T03:00:00+02:00',
      '2026-03-29T04:00:00+02:00',
    ]);
    const counted = spring.timeseries.filter((b: { views: number }) => b.views > 0).map((b: { date: string }) => b.date);
    expect(counted).toEqual(['2026-03-29T01:00:00+01:00', '2026-03-29T03:00:00+02:00']);
  });

  it('weeks and months are the zone’s', async () => {
    // Berlin's March: the four views of its days 3, 4 and 29 (the one of 23:30 UTC on 03-02 is its 3rd).
    const months = await report({ start_date: '2026-02-01', end_date: '2026-04-01', granularity: 'month', timezone: 'Europe/Berlin' });
    expect(months.timeseries.map((b: { date: string; views: number }) => [b.date, b.views])).toEqual([
      ['2026-02-01', 0],
      ['2026-03-01', 5],
    ]);
    // The week of Monday 2026-03-02 holds 03-03 and 03-04 in Berlin.
    const weeks = await report({ start_date: '2026-03-02', end_date: '2026-03-16', granularity: 'week', timezone: 'Europe/Berlin' });
    expect(weeks.timeseries.map((b: { date: string; views: number }) => [b.date, b.views])).toEqual([
      ['2026-03-02', 3],
      ['2026-03-09', 0],
    ]);
  });

  it('starts a day in a zone half an hour off UTC at the top of the hour its midnight falls in', async () => {
    // Midnight of 03-03 in Kolkata (+05:30) is 18:30 UTC on 03-02: the day starts at 18:00 UTC,
    // and holds the view of 23:30 UTC on 03-02 and the one of 12:00 UTC on 03-03.
    const day = await report({ ...MARCH_3, timezone: 'Asia/Kolkata' });
    expect(day.summary.total_views).toBe(2);
    const hours = await report({ ...MARCH_3, granularity: 'hour', timezone: 'Asia/Kolkata' });
    expect(hours.timeseries[0].date).toBe('2026-03-02T23:30:00+05:30');
    expect(hours.timeseries).toHaveLength(24);
  });

  it('gives the overview the zone’s days, totals, top tags and referrers', async () => {
    const overview = (query: Record<string, string>) => getData(t, alice.key, '/v1/analytics/overview', query);
    const days = await overview({ start_date: '2026-03-02', end_date: '2026-03-05', timezone: 'Europe/Berlin' });
    expect(days.timezone).toBe('Europe/Berlin');
    expect(days.by_day).toEqual([
      { date: '2026-03-02', views: 0, scans: 0 },
      { date: '2026-03-03', views: 2, scans: 0 },
      { date: '2026-03-04', views: 1, scans: 0 },
    ]);
    expect(days.totals.views).toBe(3);
    const day = await overview({ ...MARCH_3, timezone: 'Europe/Berlin' });
    expect(day.totals).toMatchObject({ views: 2, qr_scans: 0 });
    expect(day.top_tags).toEqual([{ id: tag.id, title: 'Zoned', views: 2 }]);
    expect(day.by_referrer).toEqual({ direct: 2 });
    // The same dates in UTC.
    const utc = await overview({ start_date: '2026-03-02', end_date: '2026-03-05' });
    expect(utc.timezone).toBe('UTC');
    expect(utc.by_day.map((d: { views: number }) => d.views)).toEqual([1, 2, 0]);
    expectError(await get(t, alice.key, '/v1/analytics/overview', { timezone: 'Nowhere/Else' }), 400, 'validation_error', 'timezone');
  });

  it('exports the zone’s days: rows per tag and local day, and the views of its instants', async () => {
    const query = { start_date: '2026-03-02', end_date: '2026-03-05', tag_ids: tag.id };
    const csv = await get(t, alice.key, '/v1/analytics/export', { ...query, format: 'csv', timezone: 'Europe/Berlin' });
    expect(csv.status, csv.text).toBe(200);
    // Berlin's 3rd: the views of 23:30 UTC on the 2nd (V1) and noon on the 3rd (V2); its 4th: V3's.
    // A day's visitors are those of the UTC day whose noon it holds (the 3rd's: V2 and V3).
    expect(csv.text.trim().split('\n').slice(1)).toEqual([`2026-03-03,${tag.id},Zoned,2,2,0,2`, `2026-03-04,${tag.id},Zoned,1,0,0,1`]);
    const utc = await get(t, alice.key, '/v1/analytics/export', { ...query, format: 'csv' });
    expect(utc.text.trim().split('\n').slice(1)).toEqual([`2026-03-02,${tag.id},Zoned,1,1,0,1`, `2026-03-03,${tag.id},Zoned,2,2,0,2`]);
    const json = await get(t, alice.key, '/v1/analytics/export', {
      start_date: '2026-03-03',
      end_date: '2026-03-04',
      tag_ids: tag.id,
      format: 'json',
      include: 'summary,views',
      timezone: 'Europe/Berlin',
    });
    expect(json.body.data.timezone).toBe('Europe/Berlin');
    expect(json.body.data.views.map((v: { timestamp: string }) => v.timestamp)).toEqual([
      '2026-03-02T23:30:00.000Z',
      '2026-03-03T12:00:00.000Z',
    ]);
    expectError(await get(t, alice.key, '/v1/analytics/export', { timezone: 'Berlin' }), 400, 'validation_error', 'timezone');
  });

  it('takes a zone in any case and refuses an unknown one', async () => {
    expect((await report({ ...MARCH_3, timezone: 'europe/berlin' })).timezone).toBe('Europe/Berlin');
    expectError(await get(t, alice.key, `/v1/tags/${tag.id}/analytics`, { timezone: 'Mars/Olympus' }), 400, 'validation_error', 'timezone');
    expectError(await get(t, alice.key, `/v1/tags/${tag.id}/analytics/clicks`, { timezone: 'UTC+1' }), 400, 'validation_error', 'timezone');
  });

  it('counts link clicks in the zone’s days', async () => {
    const read = await getData(t, alice.key, `/v1/tags/${tag.id}`);
    const block = read.content[0].id as string;
    t.clock.freeze(new Date('2026-04-05T23:30:00.000Z'));
    const click = await request(t, 'GET', `/t/${tag.short_id}/l/${block}`, { headers: { 'user-agent': UA.iphone, cookie: `tsv=${V2}` } });
    expect(click.status, click.text).toBe(302);
    t.clock.freeze(new Date('2026-04-10T08:00:00.000Z'));
    const clicks = (query: Record<string, string>) => getData(t, alice.key, `/v1/tags/${tag.id}/analytics/clicks`, query);
    expect((await clicks({ start_date: '2026-04-05', end_date: '2026-04-06' })).total_clicks).toBe(1);
    const berlin = await clicks({ start_date: '2026-04-06', end_date: '2026-04-07', timezone: 'Europe/Berlin' });
    expect(berlin).toMatchObject({ timezone: 'Europe/Berlin', total_clicks: 1 });
    expect((await clicks({ start_date: '2026-04-05', end_date: '2026-04-06', timezone: 'Europe/Berlin' })).total_clicks).toBe(0);
  });
});
