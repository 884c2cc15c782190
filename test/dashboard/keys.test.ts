import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as accounts from '../../src/features/accounts/index.js';
import { PERMISSIONS } from '../../src/features/accounts/index.js';
import { createAccount, request, type Account } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { csrfOf, get, meStatus, post, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

/** The API Keys page: a key's whole life from the browser, against the API; and its isolation. */
describe('dashboard API keys', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');

  const keysOf = async (account: Account) =>
    (await accounts.listAdministeredKeys(t.services, accounts.actorOfUser({ ...account, plan: 'pro' }), { limit: 1000, offset: 0 })).keys;

  async function openKeys(page: Page, account: Account) {
    await signInBrowser(page, t.baseUrl, account.email);
    await page.getByRole('link', { name: 'API Keys' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/keys`);
  }

  /** The value shown once on the page right after Create or Regenerate. */
  const shownValue = async (page: Page) => (await page.locator('#shown-key').textContent())!.trim();
  const row = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

  it('creates a key whose value is shown once and works until disabled, regenerated or deleted', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await openKeys(page, alice);
    await expectAccessible(page);

    await page.getByLabel('Name').fill('ci deploy');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${t.baseUrl}/dashboard/keys` && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create Key' }).click(),
    ]);
    expect(answer.status()).toBe(200);
    expect(answer.headers()['cache-control']).toBe('no-store');
    const value = await shownValue(page);
    expect(value).toMatch(/^svc_live_/);
    await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'keys');
    expect(await meStatus(t, value)).toBe(200);

    // Reloading shows the plain page (dashboard.js made the entry a GET): the value is gone.
    await page.reload();
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/keys`);
    expect(await page.content()).not.toContain(value);
    await expect(row(page, 'ci deploy').getByText('Enabled').isVisible()).resolves.toBe(true);
    await expect(row(page, 'ci deploy').getByText('Personal').isVisible()).resolves.toBe(true);

    await row(page, 'ci deploy').getByRole('button', { name: 'Disable' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/keys?done=disabled`);
    await expect(row(page, 'ci deploy').getByText('Disabled').isVisible()).resolves.toBe(true);
    expect(await meStatus(t, value)).toBe(401);

    await row(page, 'ci deploy').getByRole('button', { name: 'Enable' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/keys?done=enabled`);
    expect(await meStatus(t, value)).toBe(200);
    await page.reload();
    await expect(row(page, 'ci deploy').locator('td[data-label="Last used"] time').count()).resolves.toBe(1);

    const questions: string[] = [];
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await row(page, 'ci deploy').getByRole('button', { name: 'Regenerate' }).click();
    await page.locator('#shown-key').waitFor();
    const next = await shownValue(page);
    expect(next).toMatch(/^svc_live_/);
    expect(next).not.toBe(value);
    expect(await meStatus(t, value)).toBe(401);
    expect(await meStatus(t, next)).toBe(200);
    await page.goto(`${t.baseUrl}/dashboard/keys`);
    expect(await page.content()).not.toContain(next);

    await row(page, 'ci deploy').getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/keys?done=deleted`);
    expect(questions).toEqual([
      'Regenerate “ci deploy”? Its current value stops working at once.',
      'Delete “ci deploy”? Requests with it are refused at once.',
    ]);
    expect(await meStatus(t, next)).toBe(401);
    await expect(row(page, 'ci deploy').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Create Test Key makes an svc_test_ key; the permissions chosen are the key’s', async () => {
    const { context, page } = await newPage(holder.browser);
    await openKeys(page, alice);
    await page.getByLabel('Name').fill('sandbox');
    await page.getByRole('button', { name: 'Create Test Key' }).click();
    const test = await shownValue(page);
    expect(test).toMatch(/^svc_test_/);
    const me = await request(t, 'GET', '/v1/me', { key: test });
    expect(me.body.data.key).toMatchObject({ environment: 'test', permissions: [...PERMISSIONS] });

    await page.goto(`${t.baseUrl}/dashboard/keys`);
    await page.getByLabel('Name').fill('reader');
    for (const permission of PERMISSIONS) {
      if (permission !== 'tags:read' && permission !== 'analytics:read') await page.getByLabel(permission, { exact: true }).uncheck();
    }
    await page.getByRole('button', { name: 'Create Key' }).click();
    const reader = await shownValue(page);
    const readerMe = await request(t, 'GET', '/v1/me', { key: reader });
    expect(readerMe.body.data.key).toMatchObject({ environment: 'live', permissions: ['tags:read', 'analytics:read'] });
    await expect(row(page, 'reader').getByRole('listitem').allTextContents()).resolves.toEqual(['tags:read', 'analytics:read']);
    expect((await request(t, 'POST', '/v1/tags', { key: reader, body: { title: 'no' } })).status).toBe(403);
    await context.close();
  });

  it('Edit changes a key’s name, permissions and allow list from the next request; its value stays', async () => {
    const { context, page } = await newPage(holder.browser);
    await openKeys(page, alice);
    await page.getByLabel('Name').fill('to edit');
    await page.getByRole('button', { name: 'Create Key' }).click();
    const value = await shownValue(page);
    expect((await request(t, 'POST', '/v1/tags', { key: value, body: { title: 'allowed' } })).status).toBe(201);

    await page.goto(`${t.baseUrl}/dashboard/keys`);
    await row(page, 'to edit').getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Edit “to edit”');
    await expect(page.getByLabel('tags:write', { exact: true }).isChecked()).resolves.toBe(true);
    await page.getByLabel('IP allow list').fill('nowhere');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('#field-ip-error').textContent()).resolves.toBe('"nowhere" is not an IP address or CIDR range.');
    expect(await meStatus(t, value)).toBe(200);
    await expectAccessible(page);
    await screenshots(page, 'key-edit');

    await page.getByLabel('Name').fill('read only');
    await page.getByLabel('tags:write', { exact: true }).uncheck();
    await page.getByLabel('IP allow list').fill('127.0.0.1, ::1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/keys?done=saved`);
    await expect(row(page, 'read only').getByText('127.0.0.1').isVisible()).resolves.toBe(true);
    expect((await request(t, 'POST', '/v1/tags', { key: value, body: { title: 'refused' } })).status).toBe(403);
    const me = await request(t, 'GET', '/v1/me', { key: value });
    expect(me.body.data.key.permissions).not.toContain('tags:write');
    await context.close();
  });

  it('shows a bad IP allow list on the field and creates nothing; a good one is enforced', async () => {
    const { context, page } = await newPage(holder.browser);
    await openKeys(page, alice);
    const before = (await keysOf(alice)).length;
    await page.getByLabel('Name').fill('office only');
    await page.getByLabel('IP allow list').fill('10.0.0.0/8\nnot-an-address');
    await page.getByRole('button', { name: 'Create Key' }).click();
    const field = page.getByLabel('IP allow list');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#field-ip-error').textContent()).resolves.toBe('"not-an-address" is not an IP address or CIDR range.');
    await expect(field.inputValue()).resolves.toBe('10.0.0.0/8\nnot-an-address');
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('office only');
    await expect(page.locator('#shown-key').count()).resolves.toBe(0);
    expect((await keysOf(alice)).length).toBe(before);
    await expectAccessible(page);

    await field.fill('10.0.0.0/8, 192.0.2.7');
    await page.getByRole('button', { name: 'Create Key' }).click();
    const office = await shownValue(page);
    expect(await meStatus(t, office)).toBe(403);
    await field.fill('127.0.0.1\n::1');
    await page.getByLabel('Name').fill('loopback only');
    await page.getByRole('button', { name: 'Create Key' }).click();
    expect(await meStatus(t, await shownValue(page))).toBe(200);
    await expect(row(page, 'office only').getByText('192.0.2.7').isVisible()).resolves.toBe(true);
    await context.close();
  });

  it('without JavaScript: one POST shows the value, destructive actions ask first, and no token creates nothing', async () => {
    const jar = await signInHttp(t, alice.email);
    const form = await get(t, '/dashboard/keys', jar);
    const before = (await keysOf(alice)).length;

    const forged = await post(t, '/dashboard/keys', jar, { name: 'forged', permissions: 'tags:read', environment: 'live' });
    expect(forged.status).toBe(403);
    const crossSite = await post(
      t,
      '/dashboard/keys',
      jar,
      { _csrf: csrfOf(form), name: 'forged', permissions: 'tags:read' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect((await keysOf(alice)).length).toBe(before);

    const created = await post(t, '/dashboard/keys', jar, {
      _csrf: csrfOf(form),
      name: 'plain',
      permissions: 'tags:read',
      environment: 'live',
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('location')).toBeNull();
    expect(created.headers.get('cache-control')).toBe('no-store');
    const value = /svc_live_[0-9A-Za-z]{38}/.exec(created.text)![0];
    expect(await meStatus(t, value)).toBe(200);
    expect((await get(t, '/dashboard/keys', jar)).text).not.toContain(value);
    const key = (await keysOf(alice)).find((k) => k.name === 'plain')!;

    const ask = await post(t, `/dashboard/keys/${key.id}/delete`, jar, { _csrf: csrfOf(form) });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Delete “plain”?');
    expect(ask.text).toContain('name="confirmed" value="yes"');
    expect(await meStatus(t, value)).toBe(200);
    const deleted = await post(t, `/dashboard/keys/${key.id}/delete`, jar, { _csrf: csrfOf(form), confirmed: 'yes' });
    expect(deleted.status).toBe(303);
    expect(await meStatus(t, value)).toBe(401);
  });

  it('works in a browser without JavaScript: Regenerate and Delete ask on a page of their own', async () => {
    const { context, page } = await newPage(holder.browser, { javaScriptEnabled: false });
    await openKeys(page, alice);
    await page.getByLabel('Name').fill('no script');
    await page.getByRole('button', { name: 'Create Key' }).click();
    const value = await shownValue(page);
    expect(await meStatus(t, value)).toBe(200);
    await page.goto(`${t.baseUrl}/dashboard/keys`);

    await row(page, 'no script').getByRole('button', { name: 'Regenerate' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Regenerate “no script”?');
    expect(await meStatus(t, value)).toBe(200);
    await page.getByRole('button', { name: 'Regenerate' }).click();
    const next = await shownValue(page);
    expect(await meStatus(t, value)).toBe(401);
    expect(await meStatus(t, next)).toBe(200);

    await page.goto(`${t.baseUrl}/dashboard/keys`);
    await row(page, 'no script').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(await meStatus(t, next)).toBe(200);
    await row(page, 'no script').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/keys?done=deleted`);
    expect(await meStatus(t, next)).toBe(401);
    await context.close();
  });

  it('pages the table 50 keys at a time', async () => {
    const many = await createAccount(t, 'pro');
    const actor = accounts.actorOfUser({ ...many, plan: 'pro' });
    for (let n = 1; n <= 55; n++) await accounts.createKey(t.services, actor, { name: `paged ${String(n).padStart(2, '0')}` });
    const jar = await signInHttp(t, many.email);
    const first = await get(t, '/dashboard/keys', jar);
    expect(first.text).toContain('1–50 of 56');
    expect(first.text).toContain('paged 49');
    expect(first.text).not.toContain('paged 50');
    expect(first.text).toContain('href="/dashboard/keys?page=2"');
    const second = await get(t, '/dashboard/keys?page=2', jar);
    expect(second.text).toContain('51–56 of 56');
    expect(second.text).toContain('paged 55');
    expect(second.text).not.toContain('paged 49');
  });

  it('tells a Free user before creation that the API refuses their personal keys', async () => {
    const notice = 'API access needs the Pro or Enterprise plan.';
    const pro = await get(t, '/dashboard/keys', await signInHttp(t, alice.email));
    expect(pro.text).not.toContain(notice);

    const free = await createAccount(t, 'free');
    const jar = await signInHttp(t, free.email);
    const page = await get(t, '/dashboard/keys', jar);
    expect(page.text).toContain(notice);
    // It is what happens: the key is made, and the API refuses it.
    const answer = await post(t, '/dashboard/keys', jar, {
      _csrf: csrfOf(page),
      name: 'free key',
      permissions: 'tags:read',
      organization: '',
    });
    expect(answer.status).toBe(200);
    const value = /svc_live_[A-Za-z0-9_-]+/.exec(answer.text)![0];
    expect(await meStatus(t, value)).toBe(403);

    await accounts.setUserPlan(t.services, accounts.OPERATOR, { email: free.email, plan: 'pro' });
    expect((await get(t, '/dashboard/keys', jar)).text).not.toContain(notice);
    expect(await meStatus(t, value)).toBe(200);
  });

  it('another user can neither see nor change a user’s keys', async () => {
    const key = await accounts.createKey(t.services, accounts.actorOfUser({ ...alice, plan: 'pro' }), { name: 'alice private' });
    const mallory = await createAccount(t, 'pro');
    const jar = await signInHttp(t, mallory.email);
    const page = await get(t, '/dashboard/keys', jar);
    expect(page.text).not.toContain('alice private');
    expect(page.text).not.toContain(key.id);
    expect((await get(t, `/dashboard/keys/${key.id}/edit`, jar)).status).toBe(404);
    for (const verb of ['disable', 'regenerate', 'delete', 'edit']) {
      const answer = await post(t, `/dashboard/keys/${key.id}/${verb}`, jar, {
        _csrf: csrfOf(page),
        confirmed: 'yes',
        name: 'taken',
        permissions: 'tags:read',
      });
      expect(answer.status, verb).toBe(404);
      expect(answer.text).toContain('Page not found');
    }
    expect(await meStatus(t, key.key)).toBe(200);
  });
});
