import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { createTag, getData, IP, UA, useAnalyticsApp, view, visitorId, type CreatedTag } from '../analytics/support.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

/**
 * The Share card of a tag's analytics: create a link (expiry, password), copy it, open it signed
 * out in a fresh browser, revoke it (then 404); and the same without scripts: a refused form
 * answered with its field's message, a confirmation page before a revoke, another user's tag 404.
 */
describe('dashboard share links', () => {
  const holder = useBrowser();
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let tag: CreatedTag;
  const NOW = '2026-05-20T12:00:00.000Z';
  const analyticsPath = () => `/dashboard/tags/${tag.id}/analytics`;
  const sharesOf = () => getData(t, alice.key, `/v1/tags/${tag.id}/analytics/shares`);

  beforeAll(async () => {
    tag = await createTag(t, alice.key, { title: 'Summer menu' });
    await view(t, tag.short_id, { at: '2026-05-18T09:00:00.000Z', ua: UA.iphone, ip: IP.london, visitor: visitorId('a') });
    await view(t, tag.short_id, {
      at: '2026-05-19T09:00:00.000Z',
      scan: true,
      ua: UA.chromeWindows,
      ip: IP.mountainView,
      visitor: visitorId('b'),
    });
    await view(t, tag.short_id, { at: '2026-05-19T10:00:00.000Z', ua: UA.iphone, ip: IP.london, visitor: visitorId('a') });
    t.clock.freeze(new Date(NOW));
  });

  it('creates a link, copies it, shows it signed out, and revokes it', async () => {
    const { page } = await newPage(holder.browser, { permissions: ['clipboard-read', 'clipboard-write'] });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}${analyticsPath()}`);
    const card = page.locator('#share');
    await expect(card.getByText('No share links yet.').isVisible()).resolves.toBe(true);

    await card.getByLabel('Expires').selectOption('7');
    await card.getByRole('button', { name: 'Create share link' }).click();
    await page.waitForURL(`${t.baseUrl}${analyticsPath()}?done=shared#share`);
    await expect(card.getByRole('status').textContent()).resolves.toContain('Share link created.');
    const [share] = await sharesOf();
    expect(share).toMatchObject({ expires_at: '2026-05-27T12:00:00.000Z', password_protected: false });
    await expect(card.locator('.share-url').textContent()).resolves.toBe(share.url);
    await expect(card.locator('.share-meta').textContent()).resolves.toBe('Created 2026-05-20 12:00 UTC · expires 2026-05-27 12:00 UTC');

    await card.getByRole('button', { name: 'Copy the share link' }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(share.url);
    await expectAccessible(page);
    await screenshots(page, 'analytics-share-card');

    // The link, signed out in a fresh browser: the report's own figures, on a phone too.
    const stats = `${t.baseUrl}${new URL(share.url).pathname}`;
    const visitor = await newPage(holder.browser, { viewport: { width: 375, height: 812 } });
    const visitorProblems = watchConsole(visitor.page);
    const shown = await visitor.page.goto(stats);
    expect(shown?.status()).toBe(200);
    await expect(visitor.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Summer menu');
    await expect(visitor.page.locator('.figure', { hasText: 'Views' }).first().locator('dd').textContent()).resolves.toBe('3');
    await expect(visitor.page.locator('.figure', { hasText: 'Unique visitors' }).locator('dd').textContent()).resolves.toBe('2');
    // Nothing is wider than the phone's screen.
    expect(await visitor.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await expectAccessible(visitor.page);
    await screenshots(visitor.page, 'stats-page');
    await visitor.page.getByRole('link', { name: 'Last 7 days' }).click();
    await expect(visitor.page.getByText('Views 14 May 2026 – 20 May 2026 (UTC)').isVisible()).resolves.toBe(true);

    const questions: string[] = [];
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await card.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(`${t.baseUrl}${analyticsPath()}?done=revoked#share`);
    expect(questions).toEqual(['Revoke this share link? Whoever has it sees “Page not found” from now on.']);
    await expect(card.getByText('No share links yet.').isVisible()).resolves.toBe(true);
    expect(await sharesOf()).toEqual([]);

    const gone = await visitor.page.goto(stats);
    expect(gone?.status()).toBe(404);
    await expect(visitor.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Page not found');
    expect(problems).toEqual([]);
    expect(visitorProblems).toEqual([]);
    await visitor.context.close();
  });

  it('works without scripts: field errors, a confirmation page, a password', async () => {
    const jar = await signInHttp(t, alice.email);
    const page = await get(t, analyticsPath(), jar);
    const csrf = csrfOf(page);
    const sharesPath = `${analyticsPath()}/shares`;

    const refused = await post(t, sharesPath, jar, { _csrf: csrf, expires: 'never', password: 'abc' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('No link was created.');
    expect(refused.text).toMatch(/<p class="field-error" id="field-password-error">Password must be 4 to 128 characters\.<\/p>/);
    const forged = await post(t, sharesPath, jar, { _csrf: csrf, expires: '3650' });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('Choose when the link expires.');
    expect(await sharesOf()).toEqual([]);

    const created = await post(t, sharesPath, jar, { _csrf: csrf, expires: 'never', password: 'open sesame' });
    expect(created.status).toBe(303);
    const [share] = await sharesOf();
    expect(share).toMatchObject({ expires_at: null, password_protected: true });
    const listed = await get(t, analyticsPath(), jar);
    expect(listed.text).toContain('never expires · password protected');
    expect((await request(t, 'GET', new URL(share.url).pathname)).status).toBe(401);

    const revoke = `${sharesPath}/${share.id}/revoke`;
    const ask = await post(t, revoke, jar, { _csrf: csrf });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Revoke this share link?');
    expect(await sharesOf()).toHaveLength(1);
    // Without the form token: refused, nothing revoked.
    expect((await post(t, revoke, jar, { confirmed: 'yes' })).status).toBe(403);
    expect(await sharesOf()).toHaveLength(1);
    const done = await post(t, revoke, jar, { _csrf: csrf, confirmed: 'yes' });
    expect(done.status).toBe(303);
    expect(await sharesOf()).toEqual([]);
    expect((await request(t, 'GET', new URL(share.url).pathname)).status).toBe(404);
  });

  it('answers 404 for another user’s tag and share', async () => {
    const share = (await request(t, 'POST', `/v1/tags/${tag.id}/analytics/shares`, { key: alice.key, body: {} })).body.data;
    const jar = await signInHttp(t, bob.email);
    const csrf = csrfOf(await get(t, '/dashboard', jar));
    expect((await post(t, `${analyticsPath()}/shares`, jar, { _csrf: csrf, expires: 'never' })).status).toBe(404);
    expect((await post(t, `${analyticsPath()}/shares/${share.id}/revoke`, jar, { _csrf: csrf, confirmed: 'yes' })).status).toBe(404);
    const bobTag = await createTag(t, bob.key, { title: "Bob's" });
    // Alice's share through Bob's own tag: not his.
    expect(
      (await post(t, `/dashboard/tags/${bobTag.id}/analytics/shares/${share.id}/revoke`, jar, { _csrf: csrf, confirmed: 'yes' })).status,
    ).toBe(404);
    expect(await sharesOf()).toHaveLength(1);
  });
});
