import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import {
  createTag,
  expectBeaconAccepted,
  getData,
  IP,
  useAnalyticsApp,
  UA,
  view,
  visitorId,
  type CreatedTag,
} from '../analytics/support.js';
import { get, screenshots, signInBrowser, signInHttp, watchConsole, type CookieJar } from './support.js';

/**
 * The analytics pages: the overview and a tag's analytics show the numbers the API answers for
 * the same period, draw their charts, export what the API exports, page the access log, show
 * live viewers (Enterprise) as they come, and answer 404 for another user's tag.
 */
describe('dashboard analytics', () => {
  const holder = useBrowser();
  const t = useAnalyticsApp();
  const ent = useAccount(t, 'enterprise');
  const pro = useAccount(t, 'pro');
  let logged: CreatedTag;
  let quiet: CreatedTag;
  let foreign: CreatedTag;
  const TODAY = '2026-05-20';
  const NOW = `${TODAY}T12:00:00.000Z`;

  beforeAll(async () => {
    logged = await createTag(t, ent.key, { title: 'Spring menu', access_logging: true });
    quiet = await createTag(t, ent.key, { title: 'Window poster' });
    foreign = await createTag(t, pro.key, { title: 'Not yours' });
    await view(t, logged.short_id, { at: '2026-04-10T09:00:00.000Z', visitor: visitorId('old') });
    await view(t, logged.short_id, { at: '2026-05-18T09:00:00.000Z', ua: UA.iphone, ip: IP.london, visitor: visitorId('a') });
    await view(t, logged.short_id, {
      at: '2026-05-18T10:30:00.000Z',
      scan: true,
      ua: UA.chromeWindows,
      ip: IP.mountainView,
      visitor: visitorId('b'),
    });
    await view(t, logged.short_id, { at: '2026-05-19T14:00:00.000Z', ua: UA.firefoxLinux, ip: IP.sydney, visitor: visitorId('a') });
    await view(t, logged.short_id, { at: '2026-05-19T15:00:00.000Z', scan: true, ua: UA.ipad, ip: IP.london, visitor: visitorId('c') });
    const token = await view(t, logged.short_id, { at: '2026-05-20T08:00:00.000Z', ua: UA.safariMac, visitor: visitorId('d') });
    await expectBeaconAccepted(t, token, 42);
    await view(t, quiet.short_id, { at: '2026-05-19T11:00:00.000Z', ua: UA.edge, ip: IP.sydney, visitor: visitorId('e') });
    await view(t, quiet.short_id, { at: '2026-05-19T11:05:00.000Z', scan: true, ua: UA.samsung, visitor: visitorId('f') });
    await view(t, foreign.short_id, { at: '2026-05-19T11:00:00.000Z', visitor: visitorId('g') });
    t.clock.freeze(new Date(NOW));
  });

  /** The figure a page shows under data-stat="key", as a number. */
  const stat = (html: string, key: string) => {
    const match = new RegExp(`data-stat="${key}">([^<]*)<`).exec(html);
    if (!match) throw new Error(`no figure ${key} on the page`);
    return match[1]!;
  };
  const count = (n: number) => n.toLocaleString('en-US');
  /** The data a chart is drawn from (its data-chart attribute). */
  const chartData = (html: string) => {
    const match = /data-chart="([^"]*)"/.exec(html);
    if (!match) throw new Error('no chart on the page');
    return JSON.parse(match[1]!.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as {
      granularity: string;
      dates: string[];
      series: Array<{ label: string; values: number[] }>;
    };
  };

  describe('over HTTP', () => {
    let jar: CookieJar;
    beforeAll(async () => {
      jar = await signInHttp(t, ent.email);
    });

    it('the overview shows the API overview of the same period, by default the last 30 days', async () => {
      for (const [path, query] of [
        ['/dashboard/analytics', {}],
        ['/dashboard/analytics?from=2026-04-01&to=2026-05-19', { start_date: '2026-04-01', end_date: TODAY }],
      ] as const) {
        const page = await get(t, path, jar);
        expect(page.status, page.text.slice(0, 300)).toBe(200);
        const api = await getData(t, ent.key, '/v1/analytics/overview', query);
        expect(stat(page.text, 'views')).toBe(count(api.totals.views));
        expect(stat(page.text, 'unique_views')).toBe(count(api.totals.unique_views));
        expect(stat(page.text, 'qr_scans')).toBe(count(api.totals.qr_scans));
        expect(stat(page.text, 'tags_created')).toBe(count(api.totals.tags_created));
        const chart = chartData(page.text);
        expect(chart.dates).toEqual(api.by_day.map((d: { date: string }) => d.date));
        expect(chart.series).toEqual([
          { label: 'Views', values: api.by_day.map((d: { views: number }) => d.views) },
          { label: 'QR scans', values: api.by_day.map((d: { scans: number }) => d.scans) },
        ]);
        for (const top of api.top_tags) expect(page.text).toContain(`href="/dashboard/tags/${top.id}/analytics?`);
      }
      const defaults = await getData(t, ent.key, '/v1/analytics/overview');
      expect(defaults.period).toEqual({ start: '2026-04-21', end: '2026-05-21' });
      expect(defaults.totals.views).toBe(7);
      expect(defaults.top_tags.map((tag: { title: string }) => tag.title)).toEqual(['Spring menu', 'Window poster']);
    });

    it("a tag's page shows the API report for each granularity", async () => {
      for (const granularity of ['hour', 'day', 'week', 'month']) {
        const page = await get(t, `/dashboard/tags/${logged.id}/analytics?from=2026-04-10&to=${TODAY}&granularity=${granularity}`, jar);
        expect(page.status, page.text.slice(0, 300)).toBe(200);
        const api = await getData(t, ent.key, `/v1/tags/${logged.id}/analytics`, {
          start_date: '2026-04-10',
          end_date: '2026-05-21',
          granularity,
        });
        expect(stat(page.text, 'total_views')).toBe(count(api.summary.total_views));
        expect(stat(page.text, 'unique_views')).toBe(count(api.summary.unique_views));
        expect(stat(page.text, 'qr_scans')).toBe(count(api.summary.qr_scans));
        expect(stat(page.text, 'direct_visits')).toBe(count(api.summary.direct_visits));
        const chart = chartData(page.text);
        expect(chart.granularity).toBe(granularity);
        expect(chart.dates).toEqual(api.timeseries.map((p: { date: string }) => p.date));
        expect(chart.series[0]!.values).toEqual(api.timeseries.map((p: { views: number }) => p.views));
        expect(chart.series[1]!.values).toEqual(api.timeseries.map((p: { unique: number }) => p.unique));
      }
      const api = await getData(t, ent.key, `/v1/tags/${logged.id}/analytics`);
      expect(api.summary).toEqual({
        total_views: 5,
        unique_views: 4,
        qr_scans: 2,
        direct_visits: 3,
        average_time_seconds: 42,
        bot_views: 0,
      });
      const page = await get(t, `/dashboard/tags/${logged.id}/analytics`, jar);
      expect(stat(page.text, 'average_time_seconds')).toBe('42s');
      // Breakdowns: every device, country and browser the API counts, with its count.
      for (const [name, views] of [
        ['Mobile', api.by_device.mobile],
        ['Desktop', api.by_device.desktop],
        ['Tablet', api.by_device.tablet],
        ['United Kingdom', api.by_country.GB],
        ['Australia', api.by_country.AU],
        ['Firefox', api.by_browser.Firefox],
      ]) {
        expect(page.text).toMatch(new RegExp(`>${name}</span>(?:(?!<tr).)*<td class="bar-views">${views}</td>`, 's'));
      }
    });

    it('refuses a malformed or reversed period, or a granularity with too many buckets, on the form', async () => {
      const bad = await get(t, '/dashboard/analytics?from=2026-02-30&to=2026-05-01', jar);
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Enter the first day as a date');
      const reversed = await get(t, `/dashboard/tags/${logged.id}/analytics?from=2026-05-10&to=2026-05-01`, jar);
      expect(reversed.status).toBe(400);
      expect(reversed.text).toContain('Choose a last day on or after the first day.');
      const hours = await get(t, `/dashboard/tags/${logged.id}/analytics?from=2026-01-01&to=${TODAY}&granularity=hour`, jar);
      expect(hours.status).toBe(400);
      expect(hours.text).toContain('choose a coarser granularity');
      expect(hours.text).toContain('aria-label="Granularity"');
    });

    it('the access log pages the logged views; a tag without logging says how to turn it on', async () => {
      const page = await get(t, `/dashboard/tags/${logged.id}/analytics`, jar);
      const api = await request(t, 'GET', `/v1/tags/${logged.id}/analytics/logs`, { key: ent.key });
      expect(api.body.pagination.total).toBe(5);
      for (const log of api.body.data.logs) expect(page.text).toContain(`datetime="${log.timestamp}"`);
      expect(page.text).toContain('<code>81.2.69.xxx</code>');
      const quietPage = await get(t, `/dashboard/tags/${quiet.id}/analytics`, jar);
      expect(quietPage.text).toContain('Access logging is off for this tag');
      expect(quietPage.text).toContain(`href="/dashboard/tags/${quiet.id}/edit"`);
    });

    it("another user's tag answers 404 on every analytics address", async () => {
      for (const path of ['', '/live', '/export?format=csv']) {
        const response = await get(t, `/dashboard/tags/${foreign.id}/analytics${path}`, jar);
        expect(response.status, path).toBe(404);
        expect(response.text).not.toContain('Not yours');
      }
      // Signed out, the live fragment answers 401 (htmx swaps nothing in), not the sign-in page.
      expect((await request(t, 'GET', `/dashboard/tags/${logged.id}/analytics/live`)).status).toBe(401);
    });

    it('exports download what the API exports, as attachments', async () => {
      const period = { start_date: '2026-04-01', end_date: '2026-05-21' };
      for (const format of ['csv', 'json']) {
        for (const [path, tagIds] of [
          ['/dashboard/analytics/export', undefined],
          [`/dashboard/tags/${logged.id}/analytics/export`, logged.id],
        ] as const) {
          const page = await get(t, `${path}?format=${format}&from=2026-04-01&to=${TODAY}`, jar);
          expect(page.status).toBe(200);
          expect(page.headers.get('content-disposition')).toBe(
            `attachment; filename="tagsvc-analytics-2026-04-01-to-2026-05-21.${format}"`,
          );
          const query = new URLSearchParams({ ...period, format, ...(tagIds ? { tag_ids: tagIds } : {}) });
          const api = await request(t, 'GET', `/v1/analytics/export?${query.toString()}`, { key: ent.key });
          expect(page.text).toBe(api.text);
        }
      }
      const csv = (await get(t, `/dashboard/tags/${logged.id}/analytics/export?format=csv&from=2026-04-01&to=${TODAY}`, jar)).text;
      expect(csv.trim().split('\n')).toEqual([
        'date,tag_id,tag_title,views,unique_views,qr_scans,direct_visits',
        `2026-04-10,${logged.id},Spring menu,1,1,0,1`,
        `2026-05-18,${logged.id},Spring menu,2,2,1,1`,
        `2026-05-19,${logged.id},Spring menu,2,2,1,1`,
        `2026-05-20,${logged.id},Spring menu,1,1,0,1`,
      ]);
      expect((await get(t, '/dashboard/analytics/export?format=xml', jar)).status).toBe(400);
    });

    it('real-time viewers are for Enterprise: other plans are told so, and the live address is refused', async () => {
      const proJar = await signInHttp(t, pro.email);
      const page = await get(t, `/dashboard/tags/${foreign.id}/analytics`, proJar);
      expect(page.status).toBe(200);
      expect(page.text).toContain('is an Enterprise feature');
      expect(page.text).not.toContain('hx-get');
      expect((await get(t, `/dashboard/tags/${foreign.id}/analytics/live`, proJar)).status).toBe(403);
    });
  });

  describe('in the browser', () => {
    const openAnalytics = async (page: Page) => {
      await signInBrowser(page, t.baseUrl, ent.email);
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Analytics', exact: true }).click();
      await page.waitForURL(`${t.baseUrl}/dashboard/analytics`);
    };
    /** Whether the chart's canvas has been painted (any pixel not transparent). */
    const chartPainted = (page: Page, id: string) =>
      page.locator(`#${id} canvas`).evaluate((canvas: HTMLCanvasElement) => {
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        return canvas.width > 0 && pixels.some((value, i) => i % 4 === 3 && value > 0);
      });
    const figure = async (page: Page, key: string) => (await page.locator(`[data-stat="${key}"]`).textContent())!.trim();

    it('shows the overview and a tag with their charts, switches granularity and downloads exports', async () => {
      const { context, page } = await newPage(holder.browser, { acceptDownloads: true, viewport: { width: 1280, height: 900 } });
      const problems = watchConsole(page);
      await openAnalytics(page);
      const overview = await getData(t, ent.key, '/v1/analytics/overview');
      expect(await figure(page, 'views')).toBe(count(overview.totals.views));
      expect(await figure(page, 'qr_scans')).toBe(count(overview.totals.qr_scans));
      expect(await chartPainted(page, 'by-day')).toBe(true);
      // Once drawn, the chart's table folds away; it still holds the numbers.
      await expect(page.locator('details.chart-table').getAttribute('open')).resolves.toBeNull();
      await expectAccessible(page);
      await screenshots(page, 'analytics-overview');

      await page.getByRole('link', { name: 'Spring menu' }).click();
      await page.waitForURL(new RegExp(`/dashboard/tags/${logged.id}/analytics\\?`));
      const report = await getData(t, ent.key, `/v1/tags/${logged.id}/analytics`);
      expect(await figure(page, 'total_views')).toBe(count(report.summary.total_views));
      expect(await figure(page, 'unique_views')).toBe(count(report.summary.unique_views));
      expect(await chartPainted(page, 'series')).toBe(true);
      await expectAccessible(page);

      await page.getByRole('navigation', { name: 'Granularity' }).getByRole('link', { name: 'Hour' }).click();
      await page.waitForURL(/granularity=hour/);
      const hourly = await getData(t, ent.key, `/v1/tags/${logged.id}/analytics`, { granularity: 'hour' });
      await page.locator('details.chart-table summary').click();
      await expect(page.locator('details.chart-table tbody tr').count()).resolves.toBe(hourly.timeseries.length);
      expect(await chartPainted(page, 'series')).toBe(true);

      await page.getByLabel('From').fill('2026-04-10');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/from=2026-04-10/);
      const longer = await getData(t, ent.key, `/v1/tags/${logged.id}/analytics`, { start_date: '2026-04-10', granularity: 'hour' });
      expect(await figure(page, 'total_views')).toBe(count(longer.summary.total_views));
      expect(page.url()).toContain('granularity=hour');

      for (const format of ['CSV', 'JSON']) {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: `Download ${format}` }).click(),
        ]);
        expect(download.suggestedFilename()).toBe(`tagsvc-analytics-2026-04-10-to-2026-05-21.${format.toLowerCase()}`);
        const body = readFileSync((await download.path())!, 'utf8');
        const api = await request(
          t,
          'GET',
          `/v1/analytics/export?format=${format.toLowerCase()}&start_date=2026-04-10&tag_ids=${logged.id}`,
          { key: ent.key },
        );
        expect(body).toBe(api.text);
        if (format === 'JSON') expect(JSON.parse(body).data.rows).toHaveLength(4);
      }
      await page.getByRole('navigation', { name: 'Granularity' }).getByRole('link', { name: 'Day' }).click();
      await page.waitForURL(/granularity=day/);
      await screenshots(page, 'analytics-tag');
      expect(problems).toEqual([]);
      await context.close();
    });

    it("a chart shows a bucket's numbers on hover, and by keyboard from bucket to bucket", async () => {
      const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 } });
      const problems = watchConsole(page);
      await signInBrowser(page, t.baseUrl, ent.email);
      await page.goto(`${t.baseUrl}/dashboard/tags/${logged.id}/analytics?from=2026-05-14&to=2026-05-20&granularity=day`);
      const { timeseries } = await getData(t, ent.key, `/v1/tags/${logged.id}/analytics`, {
        start_date: '2026-05-14',
        end_date: '2026-05-21',
      });
      expect(timeseries.map((point: { date: string }) => point.date)).toEqual([
        '2026-05-14',
        '2026-05-15',
        '2026-05-16',
        '2026-05-17',
        '2026-05-18',
        '2026-05-19',
        '2026-05-20',
      ]);
      const tooltipOf = (i: number) =>
        [timeseries[i].date, `Views: ${timeseries[i].views}`, `Unique visitors: ${timeseries[i].unique}`].join('');
      const chart = page.locator('#series');
      const tooltip = chart.locator('.chart-tooltip');
      expect(await chartPainted(page, 'series')).toBe(true);
      await expect(tooltip.isHidden()).resolves.toBe(true);

      // The pointer over 18 May (the fifth of seven days, spread over the plot's width).
      await chart.scrollIntoViewIfNeeded();
      const over = (await chart.locator('.u-over').boundingBox())!;
      await page.mouse.move(over.x + (over.width * 4) / 6, over.y + over.height / 2);
      await tooltip.waitFor({ state: 'visible' });
      expect(await tooltip.textContent()).toBe(tooltipOf(4));
      expect(timeseries[4]).toMatchObject({ views: 2, unique: 2 });
      await page.mouse.move(over.x + over.width + 40, over.y - 60);
      await tooltip.waitFor({ state: 'hidden' });

      // By keyboard: Tab from the granularity switch reaches the chart, which reads the bucket last
      // pointed at; the arrows, Home and End move from there.
      await page.getByRole('navigation', { name: 'Granularity' }).getByRole('link', { name: 'Month' }).focus();
      await page.keyboard.press('Tab');
      await expect(chart.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
      await expect(chart.getAttribute('aria-label')).resolves.toBe(
        'Views and unique visitors by day: use the arrow keys to read each point',
      );
      await tooltip.waitFor({ state: 'visible' });
      expect(await tooltip.textContent()).toBe(tooltipOf(4));
      // A live region: a screen reader reads each bucket as the arrows reach it.
      await expect(tooltip.getAttribute('role')).resolves.toBe('status');
      await page.keyboard.press('ArrowRight');
      expect(await tooltip.textContent()).toBe(tooltipOf(5));
      await page.keyboard.press('Home');
      expect(await tooltip.textContent()).toBe(tooltipOf(0));
      await page.keyboard.press('ArrowRight');
      expect(await tooltip.textContent()).toBe(tooltipOf(1));
      await page.keyboard.press('End');
      expect(await tooltip.textContent()).toBe(tooltipOf(6));
      await page.keyboard.press('ArrowRight');
      expect(await tooltip.textContent()).toBe(tooltipOf(6));
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      expect(await tooltip.textContent()).toBe(tooltipOf(4));
      // Beside its bucket, within the chart.
      const box = (await tooltip.boundingBox())!;
      const chartBox = (await chart.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(chartBox.x);
      expect(box.x + box.width).toBeLessThanOrEqual(chartBox.x + chartBox.width);
      await expectAccessible(page);
      await screenshots(page, 'analytics-chart-tooltip');
      await page.keyboard.press('Escape');
      await tooltip.waitFor({ state: 'hidden' });
      expect(problems).toEqual([]);
      await context.close();
    });

    it('a table wider than the screen is a named region the keyboard scrolls', async () => {
      // Just wide enough for tables (narrower, they turn into cards, narrow.css): the API keys'
      // ten columns are wider still.
      const { context, page } = await newPage(holder.browser, { viewport: { width: 1100, height: 900 } });
      await signInBrowser(page, t.baseUrl, ent.email);
      await page.goto(`${t.baseUrl}/dashboard/keys`);
      const region = page.getByRole('region', { name: 'API keys' });
      const widths = await region.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
      expect(widths.scroll).toBeGreaterThan(widths.client);
      await region.focus();
      await expect(region.evaluate((element) => element.scrollLeft)).resolves.toBe(0);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => region.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
      await expectAccessible(page);
      await screenshots(page, 'analytics-table-region');
      await context.close();
    });

    it('the live viewer count rises when someone opens the public page, without a reload', async () => {
      const { context, page } = await newPage(holder.browser);
      const problems = watchConsole(page);
      await signInBrowser(page, t.baseUrl, ent.email);
      await page.goto(`${t.baseUrl}/dashboard/tags/${quiet.id}/analytics`);
      const before = Number(await figure(page, 'current_viewers'));
      const visitor = await newPage(holder.browser, { userAgent: UA.chromeWindows });
      await visitor.page.goto(`${t.baseUrl}/t/${quiet.short_id}`);
      await page
        .locator('[data-stat="current_viewers"]')
        .filter({ hasText: String(before + 1) })
        .waitFor({ timeout: 15_000 });
      const live = await getData(t, ent.key, `/v1/tags/${quiet.id}/analytics/realtime`);
      expect(live.current_viewers).toBe(before + 1);
      expect(await figure(page, 'views_last_hour')).toBe(count(live.views_last_hour));
      // The same person reloading twice is still one viewer, on the API and on the page.
      await visitor.page.reload();
      await visitor.page.reload();
      expect((await getData(t, ent.key, `/v1/tags/${quiet.id}/analytics/realtime`)).current_viewers).toBe(before + 1);
      await page.reload();
      expect(await figure(page, 'current_viewers')).toBe(String(before + 1));
      await visitor.context.close();
      expect(problems).toEqual([]);
      await context.close();
    });

    it('is readable at phone width', async () => {
      const { context, page } = await newPage(holder.browser, { viewport: { width: 390, height: 844 } });
      await signInBrowser(page, t.baseUrl, ent.email);
      await page.goto(`${t.baseUrl}/dashboard/tags/${logged.id}/analytics`);
      expect(await chartPainted(page, 'series')).toBe(true);
      // Nothing wider than the screen: the chart follows its container.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      await screenshots(page, 'analytics-tag-phone');
      await context.close();
    });
  });
});
