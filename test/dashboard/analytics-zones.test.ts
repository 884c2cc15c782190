import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useAccount } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { createTag, getData, IP, useAnalyticsApp, UA, view, visitorId, type CreatedTag } from '../analytics/support.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

/**
 * The analytics pages' breakdowns (referrers, cities, operating systems, UTM parameters) with
 * the exact counts of known views, each figure's change against the period before, and the
 * reader's time zone: saved on the Account page, else the browser's, else UTC.
 */
describe('dashboard analytics: breakdowns, changes and time zones', () => {
  const holder = useBrowser();
  const t = useAnalyticsApp();
  const ent = useAccount(t, 'enterprise');
  let poster: CreatedTag;
  let plain: CreatedTag;
  const NOW = '2026-05-20T12:00:00.000Z';
  const WEEK = 'from=2026-05-14&to=2026-05-20';

  beforeAll(async () => {
    poster = await createTag(t, ent.key, { title: 'Spring poster' });
    plain = await createTag(t, ent.key, { title: 'Plain page' });
    // The week before: two views, no scan.
    await view(t, poster.short_id, { at: '2026-05-10T10:00:00.000Z', visitor: visitorId('p1') });
    await view(t, poster.short_id, { at: '2026-05-10T11:00:00.000Z', visitor: visitorId('p2') });
    // The week shown: four views, one of them a scan, one at 23:30 UTC (the next day in Berlin).
    await view(t, poster.short_id, {
      at: '2026-05-18T10:00:00.000Z',
      query: 'utm_source=newsletter&utm_medium=email&utm_campaign=spring',
      referer: 'https://www.news.example.com/issue-12?id=secret',
      ip: IP.london,
      ua: UA.iphone,
      visitor: visitorId('a'),
    });
    await view(t, poster.short_id, {
      at: '2026-05-18T11:00:00.000Z',
      query: 'utm_source=newsletter&utm_medium=email',
      referer: 'https://news.example.com/issue-13',
      ip: IP.sydney,
      ua: UA.chromeWindows,
      visitor: visitorId('b'),
    });
    await view(t, poster.short_id, {
      at: '2026-05-19T09:00:00.000Z',
      scan: true,
      query: 'utm_source=poster&utm_medium=print',
      ip: IP.london,
      ua: UA.firefoxLinux,
      visitor: visitorId('c'),
    });
    await view(t, poster.short_id, { at: '2026-05-19T23:30:00.000Z', ip: IP.mountainView, ua: UA.safariMac, visitor: visitorId('d') });
    await view(t, plain.short_id, { at: '2026-05-19T08:00:00.000Z', visitor: visitorId('e') });
    t.clock.freeze(new Date(NOW));
  });

  /** A breakdown card's rows as [name, views], in the page's order. */
  const rowsOf = (page: Page, heading: string) =>
    page
      .locator('section.card', { has: page.getByRole('heading', { name: heading, exact: true }) })
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [row.querySelector('.bar-name')!.textContent, row.querySelector('.bar-views')!.textContent]),
      );
  const cardText = async (page: Page, heading: string) =>
    (await page.locator('section.card', { has: page.getByRole('heading', { name: heading, exact: true }) }).textContent())!;
  const zoneSelect = (page: Page) => page.getByRole('combobox', { name: 'Time zone' });
  /** The chart table's views per day, by day. */
  const viewsByDay = (page: Page) =>
    page
      .locator('details.chart-table tbody tr')
      .evaluateAll((rows) =>
        Object.fromEntries(rows.map((row) => [row.querySelector('th')!.textContent, row.querySelector('td')!.textContent])),
      );

  it("a tag's page shows every breakdown with the views' exact counts, and each figure's change", async () => {
    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, ent.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${poster.id}/analytics?${WEEK}`);
    await expect(page.locator('.zone-note').textContent()).resolves.toBe('Times in UTC · change time zone');
    // Ties in the order of their values (direct, then news.example.com).
    expect(await rowsOf(page, 'Referrers')).toEqual([
      ['Direct / none', '2'],
      ['news.example.com', '2'],
    ]);
    // In the service's order: ties as it ranks them.
    expect(await rowsOf(page, 'Cities')).toEqual([
      ['London, United Kingdom', '2'],
      ['Sydney, Australia', '1'],
      ['Mountain View, United States', '1'],
    ]);
    expect(await rowsOf(page, 'UTM sources')).toEqual([
      ['newsletter', '2'],
      ['poster', '1'],
      ['None', '1'],
    ]);
    expect(await rowsOf(page, 'UTM mediums')).toEqual([
      ['email', '2'],
      ['print', '1'],
      ['None', '1'],
    ]);
    expect(await rowsOf(page, 'UTM campaigns')).toEqual([
      ['spring', '1'],
      ['None', '3'],
    ]);
    const api = await getData(t, ent.key, `/v1/tags/${poster.id}/analytics`, { start_date: '2026-05-14', end_date: '2026-05-21' });
    const systems = Object.entries(api.by_os as Record<string, number>);
    expect(systems).toHaveLength(4);
    expect((await rowsOf(page, 'Operating systems')).sort()).toEqual(systems.map(([os, views]) => [os, String(views)]).sort());

    // 4 views against 2 the week before; 1 scan against none.
    const change = (key: string) => page.locator(`[data-change="${key}"]`);
    await expect(change('total_views').textContent()).resolves.toBe('▲ 100 %up 100 per cent vs the previous 7 days');
    await expect(change('total_views').locator('.delta-up').count()).resolves.toBe(1);
    await expect(change('qr_scans').textContent()).resolves.toBe('— no QR scans in the previous 7 days');
    // Read aloud in words: the arrow is hidden from assistive technology, the words are for it.
    await expect(change('total_views').locator('[aria-hidden="true"]').textContent()).resolves.toBe('▲ 100 %');
    await expect(change('total_views').locator('.visually-hidden').textContent()).resolves.toBe('up 100 per cent');
    await expectAccessible(page);
    await screenshots(page, 'analytics-breakdowns');

    // A page whose views came through no UTM address says how to get them.
    await page.goto(`${t.baseUrl}/dashboard/tags/${plain.id}/analytics?${WEEK}`);
    expect(await cardText(page, 'UTM sources')).toContain('Add ?utm_source=… to the address you share');
    expect(await rowsOf(page, 'UTM sources')).toEqual([]);
    expect(await rowsOf(page, 'Referrers')).toEqual([['Direct / none', '1']]);
    await expect(page.locator('[data-change="total_views"]').textContent()).resolves.toBe('— no views in the previous 7 days');

    await page.goto(`${t.baseUrl}/dashboard/analytics?${WEEK}`);
    expect(await rowsOf(page, 'Referrers')).toEqual([
      ['Direct / none', '3'],
      ['news.example.com', '2'],
    ]);
    expect(await rowsOf(page, 'UTM sources')).toEqual([
      ['newsletter', '2'],
      ['poster', '1'],
      ['None', '2'],
    ]);
    await expect(page.locator('[data-change="views"]').textContent()).resolves.toBe('▲ 150 %up 150 per cent vs the previous 7 days');
    await expectAccessible(page);
    await screenshots(page, 'analytics-overview-breakdowns');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a saved time zone moves a view at 23:30 UTC to the next day in Berlin, and wins over the browser’s', async () => {
    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 }, timezoneId: 'America/New_York' });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, ent.email);
    // The browser's zone, from the cookie the dashboard's script set on the first page.
    await page.goto(`${t.baseUrl}/dashboard/analytics?${WEEK}`);
    await expect(page.locator('.zone-note').textContent()).resolves.toBe('Times in America/New_York · change time zone');

    await page.getByRole('link', { name: 'change time zone' }).click();
    await page.waitForURL(/\/dashboard\/account/);
    await expect(zoneSelect(page).inputValue()).resolves.toBe('');
    await expect(page.getByRole('option', { name: 'Browser’s time zone (America/New_York)' }).count()).resolves.toBe(1);
    await zoneSelect(page).selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.waitForURL(/time-zone=saved/);
    await expect(page.getByText('Time zone saved.').isVisible()).resolves.toBe(true);
    await expect(zoneSelect(page).inputValue()).resolves.toBe('Europe/Berlin');
    await expectAccessible(page);
    await screenshots(page, 'account-time-zone');

    await page.goto(`${t.baseUrl}/dashboard/tags/${poster.id}/analytics?${WEEK}`);
    await expect(page.locator('.zone-note').textContent()).resolves.toBe('Times in Europe/Berlin · change time zone');
    const berlin = await viewsByDay(page);
    expect([berlin['2026-05-18'], berlin['2026-05-19'], berlin['2026-05-20']]).toEqual(['2', '1', '1']);
    const api = await getData(t, ent.key, `/v1/tags/${poster.id}/analytics`, {
      start_date: '2026-05-14',
      end_date: '2026-05-21',
      timezone: 'Europe/Berlin',
    });
    expect(Object.values(berlin)).toEqual(api.timeseries.map((point: { views: number }) => String(point.views)));

    // Back to the browser's zone (New York): the view is on the 19th again.
    await page.goto(`${t.baseUrl}/dashboard/account`);
    await zoneSelect(page).selectOption('');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.waitForURL(/time-zone=saved/);
    await page.goto(`${t.baseUrl}/dashboard/tags/${poster.id}/analytics?${WEEK}`);
    await expect(page.locator('.zone-note').textContent()).resolves.toBe('Times in America/New_York · change time zone');
    const newYork = await viewsByDay(page);
    expect([newYork['2026-05-18'], newYork['2026-05-19'], newYork['2026-05-20']]).toEqual(['2', '2', '0']);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses a time zone the server does not know, or a form without its token, and keeps the saved one', async () => {
    const jar = await signInHttp(t, ent.email);
    const account = await get(t, '/dashboard/account', jar);
    const saved = await post(t, '/dashboard/account/time-zone', jar, { _csrf: csrfOf(account), time_zone: 'asia/tokyo' });
    expect(saved.status).toBe(303);
    const refused = await post(t, '/dashboard/account/time-zone', jar, { _csrf: csrfOf(account), time_zone: 'Mars/Olympus_Mons' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Choose a time zone from the list, such as Europe/Berlin.');
    expect(refused.text).toMatch(/<select id="[^"]+" name="time_zone" aria-invalid="true"/);
    const forged = await post(t, '/dashboard/account/time-zone', jar, { time_zone: 'Europe/London' });
    expect(forged.status).toBe(403);
    // The saved zone, as the runtime spells it, is still the one the reports use; an unknown
    // browser zone in the cookie changes nothing.
    jar.cookies.set('tz', 'Nowhere/Else');
    const overview = await get(t, `/dashboard/analytics?${WEEK}`, jar);
    expect(overview.text).toContain('Times in Asia/Tokyo');
    const cleared = await post(t, '/dashboard/account/time-zone', jar, { _csrf: csrfOf(account), time_zone: '' });
    expect(cleared.status).toBe(303);
    expect((await get(t, `/dashboard/analytics?${WEEK}`, jar)).text).toContain('Times in UTC');
    jar.cookies.set('tz', encodeURIComponent('europe/paris'));
    expect((await get(t, `/dashboard/analytics?${WEEK}`, jar)).text).toContain('Times in Europe/Paris');
  });
});
