import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, getData, IP, useAnalyticsApp, UA, view, visitorId, type CreatedTag } from './support.js';

/**
 * The breakdowns of issue #34, from known views through the real public pages: referring host
 * (`direct` when none, or from the page's own site), operating system, city with its country,
 * and the page address's UTM parameters; the ten largest, then `other` and `unknown`. The
 * account overview's by_referrer and by_utm_source, and a deleted tag's share leaving them.
 */
describe('analytics breakdowns', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let tag: CreatedTag;
  const PERIOD = { start_date: '2026-03-01', end_date: '2026-03-08' };

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-03-01T08:00:00.000Z'));
    tag = await createTag(t, alice.key, { title: 'Launch page' });
    const s = tag.short_id;
    const at = (minute: number) => `2026-03-02T10:${String(minute).padStart(2, '0')}:00.000Z`;
    // London, iPhone, from a newsletter link on www.news.example.com.
    await view(t, s, {
      at: at(0),
      ua: UA.iphone,
      ip: IP.london,
      visitor: visitorId('b1'),
      referer: 'https://www.news.example.com/story?id=1',
      query: 'utm_source=newsletter&utm_medium=email&utm_campaign=spring+launch',
    });
    // Mountain View, Windows, from a social site, the same source by another medium.
    await view(t, s, {
      at: at(1),
      ua: UA.chromeWindows,
      ip: IP.mountainView,
      visitor: visitorId('b2'),
      referer: 'https://social.example.org/',
      query: 'utm_source=newsletter&utm_medium=social',
    });
    // Sydney, Linux, typed in: direct, no campaign; an empty utm_source is none.
    await view(t, s, { at: at(2), ua: UA.firefoxLinux, ip: IP.sydney, visitor: visitorId('b3'), query: 'utm_source=' });
    // A QR scan with no known place.
    await view(t, s, { at: at(3), scan: true, ua: UA.ipad, ip: IP.local, visitor: visitorId('b4') });
    // A link on the page's own site is direct too.
    await view(t, s, {
      at: at(4),
      ua: UA.iphone,
      ip: IP.london,
      visitor: visitorId('b1'),
      referer: `${t.baseUrl}/t/${s}`,
      query: 'utm_source=poster',
    });
  });

  const report = (id = tag.id, query: Record<string, string> = PERIOD) => getData(t, alice.key, `/v1/tags/${id}/analytics`, query);

  it('breaks the views down by referrer, operating system, city and UTM parameters', async () => {
    const data = await report();
    expect(data.summary.total_views).toBe(5);
    expect(data.by_referrer).toEqual({ direct: 3, 'news.example.com': 1, 'social.example.org': 1 });
    expect(data.by_os).toEqual({ iOS: 3, Linux: 1, Windows: 1 });
    expect(data.by_city).toEqual([
      { city: 'London', country: 'GB', views: 2 },
      { city: 'Sydney', country: 'AU', views: 1 },
      { city: 'Mountain View', country: 'US', views: 1 },
      { city: 'unknown', country: null, views: 1 },
    ]);
    expect(data.by_utm_source).toEqual({ newsletter: 2, poster: 1, unknown: 2 });
    expect(data.by_utm_medium).toEqual({ email: 1, social: 1, unknown: 3 });
    expect(data.by_utm_campaign).toEqual({ 'spring launch': 1, unknown: 4 });
    // The spec's breakdowns are as they were.
    expect(data.by_device).toEqual({ mobile: 2, desktop: 2, tablet: 1 });
    expect(data.by_country).toEqual({ GB: 2, US: 1, AU: 1, other: 1 });
  });

  it('keeps the ten largest values and sums the rest under other, apart from unknown', async () => {
    const many = await createTag(t, alice.key, { title: 'Many sources' });
    // Sources s01..s12 seen 13..2 times, and three views without a source.
    for (let i = 1; i <= 12; i++) {
      for (let n = 0; n < 14 - i; n++) {
        await view(t, many.short_id, { at: '2026-03-03T12:00:00.000Z', query: `utm_source=s${String(i).padStart(2, '0')}` });
      }
    }
    for (let n = 0; n < 3; n++) await view(t, many.short_id, { at: '2026-03-03T12:00:00.000Z' });
    const { by_utm_source: sources } = await report(many.id);
    const top = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${String(i + 1).padStart(2, '0')}`, 13 - i]));
    expect(sources).toEqual({ ...top, other: 3 + 2, unknown: 3 });
    expect(Object.keys(sources).slice(0, 10)).toEqual(Object.keys(top));
  });

  it('gives the overview the account’s referrers and UTM sources, and a deleted tag’s leave them', async () => {
    const other = await createTag(t, alice.key, { title: 'Second page' });
    await view(t, other.short_id, {
      at: '2026-03-04T09:00:00.000Z',
      referer: 'https://social.example.org/post/1',
      query: 'utm_source=newsletter',
    });
    const overview = () => getData(t, alice.key, '/v1/analytics/overview', PERIOD);
    // Launch page's five views, the "many sources" page's 93 (no referrer) and this one.
    let data = await overview();
    expect(data.by_referrer).toEqual({ direct: 96, 'social.example.org': 2, 'news.example.com': 1 });
    // The ten largest are the "many sources" page's; newsletter (3), poster (1), s11 (3) and s12 (2) are the rest.
    const tenLargest = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${String(i + 1).padStart(2, '0')}`, 13 - i]));
    expect(data.by_utm_source).toEqual({ ...tenLargest, other: 9, unknown: 5 });

    const berlin = () => getData(t, alice.key, '/v1/analytics/overview', { ...PERIOD, timezone: 'Europe/Berlin' });
    expect((await berlin()).totals.views).toBe(99);

    const deleted = await request(t, 'DELETE', `/v1/tags/${other.id}`, { key: alice.key });
    expect(deleted.status, deleted.text).toBe(200);
    data = await overview();
    expect(data.by_referrer).toEqual({ direct: 96, 'news.example.com': 1, 'social.example.org': 1 });
    expect(data.by_utm_source).toEqual({ ...tenLargest, other: 8, unknown: 5 });
    // Its hours leave the account's hours (scope_hourly) too.
    expect((await berlin()).totals.views).toBe(98);

    // Another account sees none of them.
    const theirs = await getData(t, bob.key, '/v1/analytics/overview', PERIOD);
    expect(theirs.by_referrer).toEqual({});
    expect(theirs.by_utm_source).toEqual({});
  });

  it('reads a year of breakdowns from the monthly rollups as from the daily ones', async () => {
    t.clock.freeze(new Date('2026-06-15T08:00:00.000Z'));
    const year = await report(tag.id, { start_date: '2026-01-01', end_date: '2026-06-01' });
    const week = await report();
    expect(year.summary.total_views).toBe(5);
    for (const key of ['by_referrer', 'by_os', 'by_city', 'by_utm_source', 'by_utm_medium', 'by_utm_campaign'] as const) {
      expect(Object.keys(week[key]).length, key).toBeGreaterThan(0);
      expect(year[key], key).toEqual(week[key]);
    }
  });
});
