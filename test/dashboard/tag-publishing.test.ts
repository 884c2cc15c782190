import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as tags from '../../src/features/tags/index.js';
import { createAccount, request, type TestApp, actorOf } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { UA, visitorId } from '../analytics/support.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole, type CookieJar } from './support.js';

/**
 * Publishing a tag from the dashboard: its chosen address (checked as it is typed), status,
 * schedule and expiry in the browser's time zone, password and theme in the editor, with the
 * live preview; the clicks of its link blocks on its analytics; the list's state, views and
 * Copy.
 */

const HOUR = 3600_000;

/** The public page of a tag, as a visitor's browser asks for it (a counted view). */
const visit = (t: TestApp, path: string, visitor?: string) =>
  request(t, 'GET', path, { headers: { 'user-agent': UA.chromeWindows, ...(visitor ? { cookie: `tsv=${visitor}` } : {}) } });

describe('dashboard: publishing a tag', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let aliceJar: CookieJar;

  const apiTag = async (id: string) => (await request(t, 'GET', `/v1/tags/${id}`, { key: alice.key })).body.data;
  const preview = (page: Page) => page.frameLocator('iframe[name="tag-preview"]');
  const save = async (page: Page, tagId: string) => {
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(new RegExp(`/dashboard/tags/${tagId}/edit\\?done=saved`));
  };
  const addressCheck = (page: Page) => page.locator('#field-short_id-check');

  beforeAll(async () => {
    aliceJar = await signInHttp(t, alice.email);
  });

  it('checks a chosen address as it is typed, saves it, and says the old one keeps redirecting', async () => {
    await tags.createTag(t.services, actorOf(bob), { title: 'Bob’s secret bakery', short_id: 'bakery' });
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Corner café' });
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    const address = page.getByLabel('Address', { exact: true });
    await expect(address.inputValue()).resolves.toBe(tag.short_id);
    await expect(page.locator('.input-prefix').textContent()).resolves.toBe('tagsvc.test/t/');

    await address.fill('Bakery');
    await expect.poll(() => addressCheck(page).textContent()).toBe('Taken: another page has or had this address.');
    await address.fill('admin');
    await expect.poll(() => addressCheck(page).textContent()).toBe('Not allowed: the service keeps this word for its own addresses.');
    await address.fill('a b');
    await expect.poll(() => addressCheck(page).textContent()).toBe('Not allowed: use 3 to 64 letters, digits, - or _.');
    await address.fill(tag.short_id);
    await expect.poll(() => addressCheck(page).textContent()).toBe('The page’s address now.');
    await address.fill('corner-cafe');
    await expect.poll(() => addressCheck(page).textContent()).toBe('Available');
    await expect(addressCheck(page).getAttribute('aria-live')).resolves.toBe('polite');
    await expectAccessible(page);

    await save(page, tag.id);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain(
      `The old address, http://tagsvc.test/t/${tag.short_id}, keeps working: it redirects to the new one.`,
    );
    expect((await apiTag(tag.id)).short_id).toBe('corner-cafe');
    const moved = await visit(t, `/t/${tag.short_id}`);
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toMatch(/\/t\/corner-cafe$/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('answers the address check for nobody else’s tag, and never with another tag’s title', async () => {
    const theirs = await tags.createTag(t.services, actorOf(bob), { title: 'Bob’s hidden page', short_id: 'hidden-page' });
    const check = (query: string) => get(t, `/dashboard/tags/address?${query}`, aliceJar);
    const taken = await check('short_id=hidden-page');
    expect(taken.status).toBe(200);
    expect(taken.text).toContain('Taken');
    expect(taken.text).not.toContain('Bob');
    expect((await check('short_id=brand-new-one')).text).toContain('Available');
    expect((await check('short_id=')).text).toBe('');
    const foreign = await check(`short_id=x-y-z&tag=${theirs.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('Bob’s hidden page');
    // Signed out: an empty 401, which htmx swaps in for nothing.
    const signedOut = await request(t, 'GET', '/dashboard/tags/address?short_id=abc');
    expect(signedOut.status).toBe(401);
  });

  it('a new tag can start at a chosen address; a taken one is refused under its field', async () => {
    const form = await get(t, '/dashboard/tags/new', aliceJar);
    const fields = { _csrf: csrfOf(form), title: 'Spring fair', read: 'public', write: 'owner', folder: '' };
    const made = await post(t, '/dashboard/tags/new', aliceJar, { ...fields, short_id: 'spring-fair' });
    expect(made.status).toBe(303);
    const taken = await post(t, '/dashboard/tags/new', aliceJar, { ...fields, short_id: 'SPRING-FAIR' });
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('id="field-short_id-error"');
    expect(taken.text).toContain('That address is taken');
    const reserved = await post(t, '/dashboard/tags/new', aliceJar, { ...fields, title: ' ', short_id: 'docs' });
    expect(reserved.status).toBe(400);
    // Every problem at once: the title's and the address's.
    expect(reserved.text).toContain('id="field-title-error"');
    expect(reserved.text).toContain("The address 'docs' is reserved by the service; choose another.");
    const random = await post(t, '/dashboard/tags/new', aliceJar, { ...fields, title: 'No address', short_id: '' });
    expect(random.status).toBe(303);
  });

  it('schedules and expires in the browser’s time zone, round trip, and shows the state in the header', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Summer menu' });
    const { context, page } = await newPage(holder.browser, { timezoneId: 'Europe/Berlin', locale: 'en-US' });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    await expect(page.locator('[data-time-zone-label]').textContent()).resolves.toBe('Europe/Berlin');
    await expect(page.locator('.tag-states').textContent()).resolves.toBe('Live');

    // Summer time (UTC+2) and winter time (UTC+1) in one schedule.
    await page.getByLabel('Publish at').fill('2027-07-01T09:00');
    await page.getByLabel('Expires at').fill('2027-12-01T18:30');
    await page.getByLabel('Expire after (views)').fill('500');
    await page.getByLabel('When expired, send visitors to').fill('https://example.com/next-season');
    await save(page, tag.id);
    expect(await apiTag(tag.id)).toMatchObject({
      publish_at: '2027-07-01T07:00:00.000Z',
      expires_at: '2027-12-01T17:30:00.000Z',
      max_views: 500,
      expired_url: 'https://example.com/next-season',
    });
    // Shown back in Berlin's time, with the state of the page in its header.
    await expect(page.getByLabel('Publish at').inputValue()).resolves.toBe('2027-07-01T09:00');
    await expect(page.getByLabel('Expires at').inputValue()).resolves.toBe('2027-12-01T18:30');
    await expect(page.locator('.tag-states').textContent()).resolves.toBe('Scheduled for Jul 1, 2027, 9:00 AM GMT+2');
    await expectAccessible(page);
    await screenshots(page, 'tag-editor-publishing');

    // A time the form shows unchanged keeps its stored seconds.
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { publish_at: '2027-07-01T07:00:30Z' } });
    await page.reload();
    await page.getByLabel('Title').fill('Summer menu 2027');
    await save(page, tag.id);
    expect(await apiTag(tag.id)).toMatchObject({ title: 'Summer menu 2027', publish_at: '2027-07-01T07:00:30.000Z' });

    // Without scripts the form is in UTC, and says so.
    const plain = await get(t, `/dashboard/tags/${tag.id}/edit`, aliceJar);
    expect(plain.text).toMatch(/name="publish_at" type="datetime-local" autocomplete="off" value="2027-07-01T07:00"/);
    expect(plain.text).toContain('<span data-time-zone-label>UTC</span>');

    await page.getByLabel('Draft').check();
    await page.getByLabel('Publish at').fill('');
    await save(page, tag.id);
    expect(await apiTag(tag.id)).toMatchObject({ status: 'draft', publish_at: null });
    await expect(page.locator('.tag-states').textContent()).resolves.toBe('Draft');
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(404);
    // The header's Preview shows the draft all the same (its address is the public host's).
    const previewUrl = new URL((await page.getByRole('link', { name: /^Preview/ }).getAttribute('href'))!);
    const previewed = await request(t, 'GET', previewUrl.pathname);
    expect(previewed.status).toBe(200);
    expect(previewed.text).toContain('<h1>Summer menu 2027</h1>');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses every bad publishing field at once, under each field, saving nothing', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Careful' });
    const editPath = `/dashboard/tags/${tag.id}/edit`;
    const csrf = csrfOf(await get(t, editPath, aliceJar));
    const base = { _csrf: csrf, title: 'Careful', short_id: tag.short_id, read: 'public', write: 'owner', folder: '', op: 'save' };
    const publishing = {
      status: 'published',
      time_zone: 'Europe/Berlin',
      publish_at: '2027-03-01T10:00',
      expires_at: '2027-02-01T10:00',
      max_views: '0',
      expired_url: 'http://example.com/plain',
      theme_preset: 'default',
      accent_color: '#0b57d0',
      preset_accent: 'yes',
    };
    const own = await post(t, editPath, aliceJar, { ...base, ...publishing, title: '' });
    expect(own.status).toBe(400);
    // The form's own problem (the view count) and the service's (title, address for expired visits) together.
    expect(own.text).toContain('Fix these 3 problems');
    expect(own.text).toContain('id="field-title-error"');
    expect(own.text).toContain('Enter a whole number of views from 1 to 1,000,000,000, or leave it empty.');
    expect(own.text).toContain('The address for expired visits must be an https URL of at most 2048 characters.');
    // The times come back as typed, in the zone they were typed in.
    expect(own.text).toContain('value="2027-03-01T10:00"');
    expect(own.text).toContain('<span data-time-zone-label>Europe/Berlin</span>');

    const order = await post(t, editPath, aliceJar, { ...base, ...publishing, max_views: '', expired_url: '' });
    expect(order.status).toBe(400);
    expect(order.text).toContain('“Expires at” must be after “Publish at”.');
    const both = await post(t, editPath, aliceJar, {
      ...base,
      ...publishing,
      max_views: '',
      expired_url: '',
      expires_at: '',
      password: 'abc',
    });
    expect(both.text).toContain('The password must be 4 to 128 characters.');
    expect(await apiTag(tag.id)).toMatchObject({ publish_at: null, expires_at: null, max_views: null, password_protected: false });
  });

  it('sets, changes and removes a password, never showing it', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Staff notes' });
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    await expect(page.locator('.password-state').textContent()).resolves.toContain('No password');
    await page.locator('#field-password').fill('open sesame');
    await save(page, tag.id);
    expect((await apiTag(tag.id)).password_protected).toBe(true);
    await expect(page.locator('.password-state').textContent()).resolves.toContain('Password protected');
    await expect(page.locator('.tag-states').textContent()).resolves.toBe('LivePassword');
    await expect(page.getByLabel('New password').inputValue()).resolves.toBe('');
    expect(await page.content()).not.toContain('open sesame');
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(401);

    // Saving other changes keeps it; a new one replaces it.
    await page.getByLabel('Title').fill('Staff notes (May)');
    await save(page, tag.id);
    expect((await apiTag(tag.id)).password_protected).toBe(true);
    await page.getByLabel('New password').fill('another one');
    await save(page, tag.id);
    const unlock = await request(t, 'POST', `/t/${tag.short_id}/unlock`, {
      rawBody: new URLSearchParams({ password: 'another one' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.config.publicBaseUrl, 'user-agent': UA.chromeWindows },
    });
    expect(unlock.status, unlock.text.slice(0, 200)).toBe(303);

    await page.getByLabel('Remove the password').check();
    await save(page, tag.id);
    expect((await apiTag(tag.id)).password_protected).toBe(false);
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(200);
    await context.close();
  });

  it('picks a theme and an accent, the preview following at once', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), {
      title: 'Gallery night',
      content: [{ type: 'link', url: 'https://example.com/tickets', label: 'Tickets' }],
    });
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    const previewRoot = () => preview(page).locator('html');
    await expect(previewRoot().getAttribute('class')).resolves.toBe('theme-default');

    await page.getByRole('radio', { name: 'Dark' }).check();
    await expect.poll(() => previewRoot().getAttribute('class')).toBe('theme-dark');
    await expect(
      preview(page)
        .locator('body')
        .evaluate((body) => getComputedStyle(body).backgroundColor),
    ).resolves.toBe('rgb(10, 12, 17)');
    // The preset's own accent is shown while "Use the theme's accent" is ticked.
    await expect(page.getByLabel('Accent colour').inputValue()).resolves.toBe('#7cc4fa');

    await page.getByLabel('Accent colour').fill('#ff5500');
    await expect(page.getByLabel('Use the theme’s accent').isChecked()).resolves.toBe(false);
    await expect.poll(() => preview(page).locator('link[href^="/assets/accent/ff5500."]').count()).toBe(1);
    await expectAccessible(page);
    await screenshots(page, 'tag-editor-theme');
    await save(page, tag.id);
    expect((await apiTag(tag.id)).theme).toEqual({ preset: 'dark', accent_color: '#ff5500' });
    await expect(page.getByRole('radio', { name: 'Dark' }).isChecked()).resolves.toBe(true);

    await page.getByLabel('Use the theme’s accent').check();
    await page.getByRole('radio', { name: 'Bold' }).check();
    await expect(page.getByLabel('Accent colour').inputValue()).resolves.toBe('#6d28d9');
    await expect.poll(() => previewRoot().getAttribute('class')).toBe('theme-bold');
    await save(page, tag.id);
    expect((await apiTag(tag.id)).theme).toEqual({ preset: 'bold', accent_color: null });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows each link block’s clicks, unique clicks and click-through rate for the chosen period', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), {
      title: 'Festival',
      content: [
        { type: 'link', url: 'https://example.com/tickets', label: 'Tickets' },
        { type: 'link', url: 'https://example.com/map', label: '' },
        { type: 'link', url: 'tel:+4930123456', label: 'Call us' },
      ],
    });
    const [tickets, map] = tag.content as Array<{ id: string }>;
    for (const visitor of ['ann', 'ben', 'cat', 'dan']) expect((await visit(t, `/t/${tag.short_id}`, visitorId(visitor))).status).toBe(200);
    for (const visitor of ['ann', 'ann', 'ben']) {
      expect((await visit(t, `/t/${tag.short_id}/l/${tickets!.id}`, visitorId(visitor))).status).toBe(302);
    }
    expect((await visit(t, `/t/${tag.short_id}/l/${map!.id}`, visitorId('cat'))).status).toBe(302);

    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/analytics`);
    const table = page.getByRole('table', { name: /Click-through rate/ });
    const cells = (name: string) =>
      table
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name }) })
        .getByRole('cell')
        .allTextContents();
    expect(await cells('Tickets')).toEqual(['https://example.com/tickets', '3', '2', '75.0%']);
    expect(await cells('No label')).toEqual(['https://example.com/map', '1', '1', '25.0%']);
    // A tel: link is never counted, so not listed.
    await expect(table.getByText('Call us').count()).resolves.toBe(0);
    await expect(page.locator('caption').textContent()).resolves.toBe(
      'Click-through rate: a link’s clicks divided by the page’s 4 views of the same period.',
    );
    const api = await request(t, 'GET', `/v1/tags/${tag.id}/analytics/clicks`, { key: alice.key });
    expect(api.body.data.blocks.map((block: { clicks: number }) => block.clicks)).toEqual([3, 1]);
    await expectAccessible(page);
    await screenshots(page, 'tag-analytics-clicks');

    // Another period: the clicks of those days only.
    const tomorrow = new Date(t.clock.now().getTime() + 24 * HOUR).toISOString().slice(0, 10);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/analytics?from=${tomorrow}&to=${tomorrow}`);
    expect(await cells('Tickets')).toEqual(['https://example.com/tickets', '0', '0', '—']);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists each tag’s state and views, and copies its address', async () => {
    const carol = await createAccount(t, 'pro');
    const actor = actorOf(carol);
    const at = (offset: number) => new Date(t.clock.now().getTime() + offset).toISOString();
    const live = await tags.createTag(t.services, actor, { title: 'Live page' });
    await tags.createTag(t.services, actor, { title: 'Draft page', status: 'draft' });
    await tags.createTag(t.services, actor, { title: 'Later page', publish_at: at(HOUR) });
    await tags.createTag(t.services, actor, { title: 'Old page', expires_at: at(-HOUR), publish_at: at(-2 * HOUR) });
    await tags.createTag(t.services, actor, { title: 'Locked page', password: 'letmein' });
    for (let i = 0; i < 3; i++) expect((await visit(t, `/t/${live.short_id}`)).status).toBe(200);

    const { context, page } = await newPage(holder.browser, { permissions: ['clipboard-read', 'clipboard-write'] });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, carol.email);
    await page.goto(`${t.baseUrl}/dashboard/tags`);
    const row = (title: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: title }) });
    const column = async (title: string, heading: string) => {
      const headings = await page.getByRole('columnheader').allTextContents();
      return row(title).locator('th, td').nth(headings.indexOf(heading)).textContent();
    };
    const states = Object.fromEntries(
      await Promise.all(
        ['Live page', 'Draft page', 'Later page', 'Old page', 'Locked page'].map(async (title) => [title, await column(title, 'Status')]),
      ),
    );
    expect(states).toEqual({
      'Live page': 'Live',
      'Draft page': 'Draft',
      'Later page': 'Scheduled',
      'Old page': 'Expired',
      'Locked page': 'Locked',
    });
    await expect(column('Live page', 'Views, 30 days')).resolves.toBe('3');
    await expect(column('Draft page', 'Views, 30 days')).resolves.toBe('0');

    const copy = row('Live page').locator('button[data-copy]');
    await row('Live page').getByRole('button', { name: 'Copy the address of Live page' }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(`http://tagsvc.test/t/${live.short_id}`);
    await expect(copy.textContent()).resolves.toBe('Copied the address of Live page');
    await expect.poll(() => page.locator('[aria-live="polite"]').last().textContent()).toBe('Copied to the clipboard.');
    await expectAccessible(page);
    await screenshots(page, 'tags-list-states');
    expect(problems).toEqual([]);
    await context.close();
  });
});
