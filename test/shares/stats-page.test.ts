import { beforeAll, describe, expect, it } from 'vitest';
import { createShare } from '../../src/features/shares/index.js';
import * as tags from '../../src/features/tags/index.js';
import { actorOf, request, type ApiResponse } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, IP, UA, useAnalyticsApp, view, visit, visitorId, type CreatedTag } from '../analytics/support.js';

/**
 * /stats/{token}: a shared report shows, signed out, the exact figures of views recorded through
 * the real pages, for the period chosen, within the owner's plan history; it stops (the missing
 * tag's 404) once revoked, expired or its tag deleted; a password gates it as a page's does.
 */

/** The figure a summary shows under `label`. */
function figure(html: string, label: string): string | undefined {
  return new RegExp(`<dt>${label}</dt><dd>([^<]*)</dd>`).exec(html)?.[1];
}

/** A breakdown table's rows as [name, views]. */
function breakdown(html: string, key: string): Array<[string, string]> {
  const section = new RegExp(`<section class="panel" aria-labelledby="${key}-heading">(.*?)</section>`).exec(html)?.[1] ?? '';
  return [...section.matchAll(/<tr><th scope="row">([^<]*)<\/th><td>([^<]*)<\/td>/g)].map((m) => [m[1]!, m[2]!]);
}

describe('shared stats page', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  const frugal = useAccount(t, 'free');
  let tag: CreatedTag;
  let notFoundPage: ApiResponse;
  const TODAY = '2026-03-10T12:00:00.000Z';

  const sharePath = (url: string) => new URL(url).pathname;
  async function share(body: Record<string, unknown> = {}, key = alice.key, id = tag.id): Promise<{ id: string; path: string }> {
    const response = await request(t, 'POST', `/v1/tags/${id}/analytics/shares`, { key, body });
    expect(response.status, response.text).toBe(201);
    return { id: response.body.data.id, path: sharePath(response.body.data.url) };
  }
  const open = (path: string, cookie?: string) => request(t, 'GET', path, { headers: cookie ? { cookie } : {} });

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-02-01T00:00:00.000Z'));
    tag = await createTag(t, alice.key, { title: 'Spring <poster>' });
    const s = tag.short_id;
    // 30 days up to today (Feb 9 – Mar 10): four views by two visitors, one a scan.
    await view(t, s, { at: '2026-02-20T09:00:00.000Z', ua: UA.chromeWindows, ip: IP.mountainView, visitor: visitorId('a') });
    await view(t, s, { at: '2026-03-01T10:00:00.000Z', scan: true, ua: UA.iphone, ip: IP.london, visitor: visitorId('a') });
    await view(t, s, { at: '2026-03-09T10:00:00.000Z', ua: UA.iphone, ip: IP.london, visitor: visitorId('a') });
    await view(t, s, {
      at: '2026-03-09T11:00:00.000Z',
      ua: UA.iphone,
      ip: IP.sydney,
      visitor: visitorId('b'),
      referer: 'https://news.example.com/story',
    });
    // Before the 30 days: counted in the 12 months only.
    await view(t, s, { at: '2025-12-15T10:00:00.000Z', ua: UA.firefoxLinux, ip: IP.london, visitor: visitorId('c') });
    t.clock.freeze(new Date(TODAY));
    notFoundPage = await visit(t, 'zzzzzzzz').then((v) => v.response);
    expect(notFoundPage.status).toBe(404);
  });

  it('shows the report signed out: title, exact figures, chart and breakdowns, for 30 days by default', async () => {
    const { path } = await share();
    const response = await open(path);
    expect(response.status, response.text.slice(0, 300)).toBe(200);
    const html = response.text;
    expect(html).toContain('<h1>Spring &lt;poster&gt;</h1>');
    expect(html).toContain('Views 9 Feb 2026 – 10 Mar 2026 (UTC)');
    expect(figure(html, 'Views')).toBe('4');
    expect(figure(html, 'Unique visitors')).toBe('2');
    expect(figure(html, 'QR scans')).toBe('1');
    expect(figure(html, 'Direct visits')).toBe('2');
    expect(breakdown(html, 'by_device')).toEqual([
      ['Mobile', '3'],
      ['Desktop', '1'],
    ]);
    expect(breakdown(html, 'by_country')).toEqual([
      ['United Kingdom', '2'],
      ['Australia', '1'],
      ['United States', '1'],
    ]);
    expect(breakdown(html, 'by_referrer')).toEqual([
      ['Direct', '3'],
      ['news.example.com', '1'],
    ]);
    // The chart: one bar pair a day, titled with its figures; the same figures as a table.
    expect(html.match(/<rect class="bar-views"/g)).toHaveLength(30);
    expect(html).toContain('<title>9 Mar 2026: 2 views, 2 unique visitors</title>');
    expect(html).toContain('<tr><th scope="row">9 Mar 2026</th><td>2</td><td>2</td></tr>');
    expect(html).toContain('<a href="/stats/');
    expect(html).toMatch(/<a href="[^"]+\?period=30d" aria-current="page">Last 30 days<\/a>/);
    // Read-only and for its readers only: no script, no inline style, not indexed, not cached.
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(html).not.toMatch(/<script|style=/);
    // Its stylesheet is one the CSP allows.
    const css = await request(t, 'GET', '/assets/stats.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
  });

  it('counts no view of the page, and shows the periods a visitor chooses', async () => {
    const { path } = await share();
    const week = (await open(`${path}?period=7d`)).text;
    expect(week).toContain('Views 4 Mar 2026 – 10 Mar 2026 (UTC)');
    expect(figure(week, 'Views')).toBe('2');
    expect(week.match(/<rect class="bar-views"/g)).toHaveLength(7);

    const year = (await open(`${path}?period=12m`)).text;
    expect(year).toContain('Views 1 Apr 2025 – 10 Mar 2026 (UTC)');
    expect(figure(year, 'Views')).toBe('5');
    expect(figure(year, 'Unique visitors')).toBe('3');
    expect(year.match(/<rect class="bar-views"/g)).toHaveLength(12);
    expect(year).toContain('<title>Dec 2025: 1 views, 1 unique visitors</title>');

    const dates = (await open(`${path}?from=2026-03-01&to=2026-03-09`)).text;
    expect(dates).toContain('Views 1 Mar 2026 – 9 Mar 2026 (UTC)');
    expect(figure(dates, 'Views')).toBe('3');
    expect(dates).toContain('value="2026-03-01"');

    for (const query of [
      'from=2026-03-09&to=2026-03-01',
      'from=March&to=2026-03-09',
      'from=2026-03-01&to=March',
      'from=2026-03-01&to=2026-13-45',
      'from=2026-03-01&to=2026-02-30',
      'to=2026-03-09',
    ]) {
      const refused = await open(`${path}?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.text).toContain('role="alert"');
      expect(figure(refused.text, 'Views')).toBeUndefined();
    }
    // The page itself recorded nothing: the figures are as they were.
    expect(figure((await open(path)).text, 'Views')).toBe('4');
  });

  it('keeps to the history of the owner’s plan', async () => {
    const free = actorOf(frugal, 'free');
    const freeTag = await tags.createTag(t.services, free, { title: 'Free tag' });
    const { url } = await createShare(t.services, free, { id: freeTag.id });
    // Free keeps 7 days: the 12 months start at the oldest day kept.
    expect((await open(`${sharePath(url)}?period=12m`)).text).toContain('Views 4 Mar 2026 – 10 Mar 2026 (UTC)');
  });

  it('stops at once when revoked, or its tag deleted: the missing tag’s page', async () => {
    const { id, path } = await share();
    expect((await open(path)).status).toBe(200);
    expect((await request(t, 'DELETE', `/v1/tags/${tag.id}/analytics/shares/${id}`, { key: alice.key })).status).toBe(200);
    const revoked = await open(path);
    expect(revoked.status).toBe(404);
    expect(revoked.text).toBe(notFoundPage.text);

    const doomed = await createTag(t, alice.key, { title: 'Doomed' });
    const gone = await share({}, alice.key, doomed.id);
    expect((await request(t, 'DELETE', `/v1/tags/${doomed.id}`, { key: alice.key })).status).toBe(200);
    expect((await open(gone.path)).status).toBe(404);

    // A token of no share, of the wrong shape, or one character off: the same page.
    for (const wrong of ['/stats/nothing', `${path.slice(0, -1)}${path.endsWith('A') ? 'B' : 'A'}`]) {
      const response = await open(wrong);
      expect(response.status, wrong).toBe(404);
      expect(response.text).toBe(notFoundPage.text);
    }
  });

  it('stops when it expires', async () => {
    const { path } = await share({ expires_at: '2026-03-10T13:00:00Z' });
    expect((await open(path)).status).toBe(200);
    t.clock.freeze(new Date('2026-03-10T12:59:59.999Z'));
    expect((await open(path)).status).toBe(200);
    t.clock.freeze(new Date('2026-03-10T13:00:00.000Z'));
    const expired = await open(path);
    expect(expired.status).toBe(404);
    expect(expired.text).toBe(notFoundPage.text);
    t.clock.freeze(new Date(TODAY));
  });

  it('asks for its password first, as a protected page does, with the same limit', async () => {
    const { path } = await share({ password: 'open sesame' });
    const locked = await open(path);
    expect(locked.status).toBe(401);
    expect(locked.text).toContain(`action="${path}/unlock"`);
    expect(locked.text).not.toContain('Spring');
    expect(locked.headers.get('cache-control')).toBe('private, no-store');

    const wrong = await request(t, 'POST', `${path}/unlock`, {
      rawBody: 'password=nope',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That password is not right');

    const right = await request(t, 'POST', `${path}/unlock`, {
      rawBody: 'password=open+sesame',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(path);
    const setCookie = right.headers.get('set-cookie')!;
    expect(setCookie).toContain(`Path=${path};`);
    expect(setCookie).toContain('HttpOnly');
    const cookie = setCookie.split(';')[0]!;
    const unlocked = await open(path, cookie);
    expect(unlocked.status).toBe(200);
    expect(figure(unlocked.text, 'Views')).toBe('4');

    // The cookie unlocks this share only.
    const other = await share({ password: 'open sesame' });
    expect((await open(other.path, cookie)).status).toBe(401);

    // Ten tries a minute per share and address, right or wrong; the next is refused.
    const tries: number[] = [];
    for (let i = 0; i < 9; i++) {
      const response = await request(t, 'POST', `${other.path}/unlock`, {
        rawBody: 'password=nope',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      tries.push(response.status);
    }
    expect(tries).toEqual(Array(9).fill(401));
    const tenth = await request(t, 'POST', `${other.path}/unlock`, {
      rawBody: 'password=nope',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(tenth.status).toBe(401);
    const eleventh = await request(t, 'POST', `${other.path}/unlock`, {
      rawBody: 'password=open+sesame',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
