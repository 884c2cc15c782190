import { beforeAll, describe, expect, it } from 'vitest';
import * as folders from '../../src/features/folders/index.js';
import * as tags from '../../src/features/tags/index.js';
import { createAccount, request, type Account, actorOf } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { UA } from '../analytics/support.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole, type CookieJar } from './support.js';

/** The tag list, New Tag and a tag's Overview: through the browser and plain HTTP, against the API. */
describe('dashboard tags', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let aliceJar: CookieJar;

  const tagsOf = async (account: Account) =>
    (await tags.listTags(t.services, actorOf(account), { sort: 'created', order: 'asc', limit: 1000, offset: 0 })).tags;

  beforeAll(async () => {
    aliceJar = await signInHttp(t, alice.email);
  });

  it('an empty list invites to make a tag, and links to folders and import', async () => {
    const jar = await signInHttp(t, bob.email);
    const page = await get(t, '/dashboard/tags', jar);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No tags yet');
    expect(page.text).toContain('href="/dashboard/tags/new"');
    expect(page.text).toContain('href="/dashboard/folders"');
    expect(page.text).toContain('href="/dashboard/tags/import"');
  });

  it('New Tag → Title → Save makes a public tag and opens its page; the form can make it private', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.getByRole('link', { name: 'Tags', exact: true }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags`);
    await expectAccessible(page);
    await screenshots(page, 'tags-empty');
    await page.getByRole('link', { name: 'New Tag' }).first().click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/new`);
    await expectAccessible(page);
    await screenshots(page, 'tag-new');
    await page.getByLabel('Title').fill('Spring menu');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/dashboard\/tags\/tag_[0-9a-z]+\?done=created$/);
    const made = (await tagsOf(alice)).find((tag) => tag.title === 'Spring menu')!;
    expect(made.permissions).toEqual({ read: 'public', write: 'owner' });
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/tags/${made.id}?done=created`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Spring menu');
    await expect(page.getByRole('status').textContent()).resolves.toContain('Tag created');
    const api = await request(t, 'GET', `/v1/tags/${made.id}`, { key: alice.key });
    expect(api.body.data).toMatchObject({ title: 'Spring menu', permissions: { read: 'public' }, access_logging: false, content: [] });

    await page.goto(`${t.baseUrl}/dashboard/tags/new`);
    await page.getByLabel('Title').fill('Staff rota');
    await page.getByLabel('Visibility').selectOption('private');
    await page.getByLabel('Keep an access log').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/dashboard\/tags\/tag_/);
    const rota = (await tagsOf(alice)).find((tag) => tag.title === 'Staff rota')!;
    const rotaApi = await request(t, 'GET', `/v1/tags/${rota.id}`, { key: alice.key });
    expect(rotaApi.body.data).toMatchObject({ permissions: { read: 'private', write: 'owner' }, access_logging: true });
    // A private page is a 404 to anyone not signed in as its owner.
    expect((await request(t, 'GET', `/t/${rota.short_id}`)).status).toBe(404);

    await page.goto(`${t.baseUrl}/dashboard/tags`);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Staff rota' }) });
    await expect(row.getByText('Private').isVisible()).resolves.toBe(true);
    await expect(row.getByText(`/t/${rota.short_id}`).isVisible()).resolves.toBe(true);
    await row.getByRole('link', { name: 'Staff rota' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/${rota.id}`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses a bad form field by field, 400, creating nothing', async () => {
    const before = (await tagsOf(alice)).length;
    const form = await get(t, '/dashboard/tags/new', aliceJar);
    expect(form.text).toMatch(/<option value="public" selected/);
    const csrf = csrfOf(form);
    const base = { _csrf: csrf, title: 'Fine', read: 'public', write: 'owner', folder: '' };

    const empty = await post(t, '/dashboard/tags/new', aliceJar, { ...base, title: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('id="field-title-error"');
    expect(empty.text).toContain('Title must not be empty.');

    const long = await post(t, '/dashboard/tags/new', aliceJar, { ...base, title: 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.text).toContain('id="field-title-error"');

    // Only a forged form sends these: values the form does not offer a personal account.
    const organization = await post(t, '/dashboard/tags/new', aliceJar, { ...base, read: 'organization' });
    expect(organization.status).toBe(400);
    expect(organization.text).toContain('id="field-read-error"');
    const unknown = await post(t, '/dashboard/tags/new', aliceJar, { ...base, write: 'everyone' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('id="field-write-error"');

    const bobsFolder = await folders.createFolder(t.services, actorOf(bob), { name: 'Bob’s' });
    const foreign = await post(t, '/dashboard/tags/new', aliceJar, { ...base, folder: bobsFolder.id });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('Choose one of your folders.');
    // What was typed stays in the form.
    expect(foreign.text).toContain('value="Fine"');
    expect((await tagsOf(alice)).length).toBe(before);
  });

  it('searches titles, filters by folder, sorts and pages 50 at a time', async () => {
    const carol = await createAccount(t, 'pro');
    const actor = actorOf(carol);
    const menus = await folders.createFolder(t.services, actor, { name: 'Menus' });
    const batch = Array.from({ length: 60 }, (_, i) => ({ title: `Poster ${String(i).padStart(2, '0')}` }));
    await tags.createTags(t.services, actor, { tags: batch });
    await tags.createTag(t.services, actor, { title: 'Lunch menu', folder_id: menus.id });
    await tags.createTag(t.services, actor, { title: '100% cotton' });
    await tags.createTag(t.services, actor, { title: '100 percent' });
    const jar = await signInHttp(t, carol.email);

    const first = await get(t, '/dashboard/tags', jar);
    expect(first.status).toBe(200);
    expect(first.text).toContain('1–50 of 63');
    expect((first.text.match(/<tr>/g) ?? []).length).toBe(51);
    // Newest first: the last one made heads the list.
    expect(first.text.indexOf('100 percent')).toBeLessThan(first.text.indexOf('Poster 59'));

    const search = await get(t, '/dashboard/tags?q=POSTER+5', jar);
    expect(search.text).toContain('Poster 55');
    expect(search.text).not.toContain('Poster 45');
    expect(search.text).toContain('value="POSTER 5"');
    // LIKE's wildcards are searched for as themselves.
    const percent = await get(t, `/dashboard/tags?q=${encodeURIComponent('100%')}`, jar);
    expect(percent.text).toContain('100% cotton');
    expect(percent.text).not.toContain('100 percent');
    const none = await get(t, '/dashboard/tags?q=nothing-like-it', jar);
    expect(none.text).toContain('No tags match this search.');

    const filtered = await get(t, `/dashboard/tags?folder=${menus.id}`, jar);
    expect(filtered.text).toContain('Lunch menu');
    expect(filtered.text).not.toContain('Poster 00');
    expect(filtered.text).toMatch(new RegExp(`<option value="${menus.id}" selected`));
    // New Tag from a folder's list starts in that folder.
    expect(filtered.text).toContain(`href="/dashboard/tags/new?folder=${menus.id}"`);
    expect((await get(t, `/dashboard/tags/new?folder=${menus.id}`, jar)).text).toMatch(new RegExp(`<option value="${menus.id}" selected`));
    // Somebody else's folder filters nothing (it is not among the choices).
    const bobsFolder = await folders.createFolder(t.services, actorOf(bob), { name: 'Elsewhere' });
    expect((await get(t, `/dashboard/tags?folder=${bobsFolder.id}`, jar)).text).toContain('1–50 of 63');

    const byTitle = await get(t, '/dashboard/tags?sort=title', jar);
    const titles = [...byTitle.text.matchAll(/<th scope="row" data-label="Title"><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    expect(titles.slice(0, 3)).toEqual(['100 percent', '100% cotton', 'Lunch menu']);

    const next = /href="([^"]+)" rel="next"/.exec(
      (await get(t, '/dashboard/tags?q=poster&sort=oldest', jar)).text.replaceAll('&amp;', '&'),
    )![1]!;
    expect(new URL(next, t.baseUrl).searchParams.toString()).toBe('q=poster&sort=oldest&page=2');
    const second = await get(t, next, jar);
    expect(second.text).toContain('51–60 of 60');
    expect(second.text).toContain('Poster 59');
    expect(second.text).not.toContain('Poster 49');
  });

  it('the Overview shows the API’s views, visitors and scans of the last 30 days', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Counted' });
    for (const agent of [UA.chromeWindows, UA.chromeWindows, UA.iphone]) {
      expect((await request(t, 'GET', `/t/${tag.short_id}`, { headers: { 'user-agent': agent } })).status).toBe(200);
    }
    expect((await request(t, 'GET', `/s/${tag.short_id}`, { headers: { 'user-agent': UA.iphone } })).status).toBe(200);
    const api = await request(t, 'GET', `/v1/tags/${tag.id}/analytics`, { key: alice.key });
    expect(api.status).toBe(200);
    const { summary } = api.body.data;
    expect(summary.total_views).toBe(4);
    expect(summary.qr_scans).toBe(1);
    expect(summary.unique_views).toBeGreaterThan(0);

    const page = await get(t, `/dashboard/tags/${tag.id}`, aliceJar);
    expect(page.status).toBe(200);
    const stat = (label: string) => new RegExp(`<dt>${label}</dt><dd>([\\d,]+)</dd>`).exec(page.text)?.[1];
    expect(stat('Views')).toBe(String(summary.total_views));
    expect(stat('Unique visitors')).toBe(String(summary.unique_views));
    expect(stat('QR scans')).toBe(String(summary.qr_scans));
    expect(page.text).toContain(`href="/dashboard/tags/${tag.id}/analytics"`);
    expect(page.text).toContain(`${api.body.data.period.start} to `);
    expect(page.text).toContain(`<code>${tag.url}</code>`);
  });

  it('another user’s tag answers 404 on every page of it; so does one that does not exist', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Alice’s own' });
    const jar = await signInHttp(t, bob.email);
    for (const path of [`/dashboard/tags/${tag.id}`, `/dashboard/tags/${tag.short_id}`, `/dashboard/tags/${tag.id}/edit`]) {
      const response = await get(t, path, jar);
      expect(response.status, path).toBe(404);
      expect(response.text).not.toContain('Alice’s own');
    }
    expect((await get(t, '/dashboard/tags/tag_00000000000000000000000000', jar)).status).toBe(404);
    const csrf = csrfOf(await get(t, '/dashboard/tags', jar));
    const remove = await post(t, `/dashboard/tags/${tag.id}/delete`, jar, { _csrf: csrf, confirmed: 'yes' });
    expect(remove.status).toBe(404);
    const ask = await post(t, `/dashboard/tags/${tag.id}/delete`, jar, { _csrf: csrf });
    expect(ask.status).toBe(404);
    expect((await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).status).toBe(200);

    // The browser, signed in as Bob, gets the dashboard's 404 page too.
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, bob.email);
    for (const path of [`/dashboard/tags/${tag.id}`, `/dashboard/tags/${tag.id}/edit`]) {
      const response = await page.goto(`${t.baseUrl}${path}`);
      expect(response!.status(), path).toBe(404);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Page not found');
    }
    await context.close();
  });

  it('Delete asks first (the browser’s prompt, or a page without scripts), then removes the tag', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Short lived' });
    const csrf = csrfOf(await get(t, `/dashboard/tags/${tag.id}`, aliceJar));
    const ask = await post(t, `/dashboard/tags/${tag.id}/delete`, aliceJar, { _csrf: csrf });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Delete “Short lived”?');
    expect((await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).status).toBe(200);

    const { context, page } = await newPage(holder.browser, { userAgent: UA.chromeWindows });
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}`);
    await expectAccessible(page);
    await screenshots(page, 'tag-overview');
    const questions: string[] = [];
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete tag' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags?done=deleted`);
    expect(questions).toEqual(['Delete “Short lived”? Its page, files and analytics go for good.']);
    await expect(page.getByRole('status').textContent()).resolves.toBe('Tag deleted.');
    await expectAccessible(page);
    await screenshots(page, 'tags-list');
    expect((await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).status).toBe(404);
    await context.close();
  });
});
