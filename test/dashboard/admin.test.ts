import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createAccount, request, runCli, type Account } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import {
  CookieJar,
  csrfOf,
  get,
  isSignedIn,
  meStatus,
  PASSWORD,
  post,
  screenshots,
  signInBrowser,
  signInHttp,
  watchConsole,
} from './support.js';

/** The instance owner's Admin area: who sees it, users, organizations, sign-up; and the CLI's disable. */
describe('dashboard admin area', () => {
  const holder = useBrowser();
  const t = useApp();
  let owner: { id: string; email: string };
  let alice: Account;
  let bob: Account;

  beforeAll(async () => {
    owner = await accounts.createFirstAccount(t.services, { email: 'owner@example.com', password: PASSWORD });
    [alice, bob] = [await createAccount(t, 'pro'), await createAccount(t, 'pro')];
  });

  const userRow = (page: Page, email: string) =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${email.replace(/[.+]/g, '\\$&')}`) }) });
  const isDisabled = async (userId: string) =>
    (await t.database.db.selectFrom('users').select('disabled').where('id', '=', userId).executeTakeFirstOrThrow()).disabled === 1;

  it('is the owner’s alone: others, signed in or not, get 404 and no Admin nav item', async () => {
    const ownerJar = await signInHttp(t, owner.email);
    const home = await get(t, '/dashboard', ownerJar);
    expect(home.text).toContain('href="/dashboard/admin"');

    const aliceJar = await signInHttp(t, alice.email);
    const aliceHome = await get(t, '/dashboard', aliceJar);
    expect(aliceHome.status).toBe(200);
    expect(aliceHome.text).not.toContain('/dashboard/admin');
    const anonymous = new CookieJar();
    for (const path of ['/dashboard/admin', '/dashboard/admin/users', '/dashboard/admin/users?q=a', '/dashboard/admin/organizations']) {
      expect((await get(t, path, ownerJar)).status, path).toBe(200);
      for (const jar of [aliceJar, anonymous]) {
        const response = await get(t, path, jar);
        expect(response.status, path).toBe(404);
        expect(response.text).toContain('<h1>Page not found</h1>');
        expect(response.text).not.toContain('Admin');
      }
    }

    // POSTs of a signed-in non-owner change nothing and answer the same 404.
    const csrf = csrfOf(aliceHome);
    for (const [path, fields] of [
      [`/dashboard/admin/users/${bob.userId}/disable`, { confirmed: 'yes' }],
      [`/dashboard/admin/users/${alice.userId}/plan`, { plan: 'enterprise' }],
      ['/dashboard/admin/signup', { signup: 'open' }],
    ] as const) {
      const response = await post(t, path, aliceJar, { _csrf: csrf, ...fields });
      expect(response.status, path).toBe(404);
    }
    expect(await isDisabled(bob.userId)).toBe(false);
    expect((await get(t, '/dashboard/signup', anonymous)).status).toBe(404);
    expect((await accounts.getAnyUser(t.services, OPERATOR, { userId: alice.userId })).plan).toBe('pro');

    // The services refuse a non-owner too, whatever front door calls them.
    await expect(
      accounts.listAllUsers(t.services, accounts.actorOfUser({ ...alice, plan: 'pro' }), { limit: 10, offset: 0 }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('disables a user: signed out at once, sign-in refused, API key 401 — and enables them again', async () => {
    const aliceJar = await signInHttp(t, alice.email);
    expect(await meStatus(t, alice.key)).toBe(200); // now in the key cache

    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 } });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, owner.email);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/admin`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Admin');
    await expectAccessible(page);
    await screenshots(page, 'admin-overview');

    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/admin/users`);
    await expect(userRow(page, owner.email).getByText('Owner', { exact: true }).isVisible()).resolves.toBe(true);
    // The owner has no Disable button: they cannot disable themself.
    await expect(userRow(page, owner.email).getByRole('button', { name: 'Disable' }).count()).resolves.toBe(0);
    await expect(userRow(page, alice.email).locator('td[data-label="Last sign-in"] time').count()).resolves.toBe(1);
    await expect(userRow(page, bob.email).getByText('Never').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'admin-users');

    await page.getByLabel('Search by email').fill(alice.email.slice(0, 8));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/dashboard\/admin\/users\?q=/);
    await expect(page.getByRole('rowheader').count()).resolves.toBe(1);

    const questions: string[] = [];
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await userRow(page, alice.email).getByRole('button', { name: 'Disable' }).click();
    await page.waitForURL(/done=disabled/);
    // Back to the same search, with the notice.
    expect(new URL(page.url()).searchParams.get('q')).toBe(alice.email.slice(0, 8));
    expect(questions).toEqual([`Disable ${alice.email}? They are signed out at once, cannot sign in, and their API keys stop working.`]);
    await expect(page.getByRole('status').textContent()).resolves.toContain('User disabled.');
    await expect(userRow(page, alice.email).getByText('Disabled').isVisible()).resolves.toBe(true);

    expect(await isSignedIn(t, aliceJar)).toBe(false);
    expect(await meStatus(t, alice.key)).toBe(401);
    const me = await request(t, 'GET', '/v1/me', { key: alice.key });
    expect(me.body.error).toMatchObject({ code: 'unauthorized', message: 'The account of this API key is disabled' });
    const browser = new CookieJar();
    const login = await get(t, '/dashboard/login', browser);
    const refused = await post(t, '/dashboard/login', browser, { _csrf: csrfOf(login), email: alice.email, password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('This account is disabled. Ask the owner of this instance to enable it again.');
    expect(browser.cookies.get('tagsvc_session')).toBeUndefined();
    // A wrong password says nothing about the account.
    const wrong = await post(t, '/dashboard/login', browser, { _csrf: csrfOf(login), email: alice.email, password: 'wrong password' });
    expect(wrong.text).toContain('Incorrect email or password.');
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('disabled');
    await screenshots(page, 'admin-users-disabled');

    await userRow(page, alice.email).getByRole('button', { name: 'Enable' }).click();
    await page.waitForURL(/done=enabled/);
    await expect(userRow(page, alice.email).getByText('Active').isVisible()).resolves.toBe(true);
    expect(await meStatus(t, alice.key)).toBe(200);
    expect(await isSignedIn(t, await signInHttp(t, alice.email))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('without scripts, Disable asks on a page of its own first; the owner cannot be disabled', async () => {
    const jar = await signInHttp(t, owner.email);
    const list = await get(t, '/dashboard/admin/users?q=user', jar);
    const asked = await post(t, `/dashboard/admin/users/${bob.userId}/disable?q=user`, jar, { _csrf: csrfOf(list), confirmed: '' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain(`Disable ${bob.email}?`);
    expect(asked.text).toContain(`action="/dashboard/admin/users/${bob.userId}/disable?q=user"`);
    expect(await isDisabled(bob.userId)).toBe(false);

    const self = await post(t, `/dashboard/admin/users/${owner.id}/disable`, jar, { _csrf: csrfOf(list), confirmed: 'yes' });
    expect(self.status).toBe(403);
    expect(self.text).toContain('The instance owner cannot be disabled.');
    expect(await isDisabled(owner.id)).toBe(false);
    expect(await isSignedIn(t, jar)).toBe(true);

    const unknown = await post(t, '/dashboard/admin/users/usr_nobody/disable', jar, { _csrf: csrfOf(list), confirmed: 'yes' });
    expect(unknown.status).toBe(404);
  });

  it('changes a user’s plan: their dashboard and their API key follow at once', async () => {
    const bobJar = await signInHttp(t, bob.email);
    expect((await request(t, 'GET', '/v1/me', { key: bob.key })).body.data.plan).toBe('pro'); // cached

    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, owner.email);
    await page.goto(`${t.baseUrl}/dashboard/admin/users`);
    await userRow(page, bob.email).getByLabel(`Plan of ${bob.email}`).selectOption('enterprise');
    await userRow(page, bob.email).getByRole('button', { name: 'Change plan' }).click();
    await page.waitForURL(/done=plan/);
    await expect(page.getByRole('status').textContent()).resolves.toContain('Plan changed.');
    await expect(userRow(page, bob.email).getByLabel(`Plan of ${bob.email}`).inputValue()).resolves.toBe('enterprise');
    await context.close();

    const home = await get(t, '/dashboard', bobJar);
    expect(home.text).toContain('<span class="badge badge-enterprise">Enterprise</span>');
    expect((await request(t, 'GET', '/v1/me', { key: bob.key })).body.data.plan).toBe('enterprise');

    // A forged plan: a clear error, nothing changed.
    const jar = await signInHttp(t, owner.email);
    const list = await get(t, '/dashboard/admin/users', jar);
    const forged = await post(t, `/dashboard/admin/users/${bob.userId}/plan`, jar, { _csrf: csrfOf(list), plan: 'platinum' });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('No plan was changed. Plan must be free, pro or enterprise');
    expect((await accounts.getAnyUser(t.services, OPERATOR, { userId: bob.userId })).plan).toBe('enterprise');
  });

  it('opens and closes sign-up, effective at once', async () => {
    const visitor = new CookieJar();
    expect((await get(t, '/dashboard/signup', visitor)).status).toBe(404);

    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, owner.email);
    await page.goto(`${t.baseUrl}/dashboard/admin`);
    await page.getByRole('button', { name: 'Open sign-up' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/admin?done=opened`);
    await expect(page.locator('.stat-value').nth(2).textContent()).resolves.toBe('Open');
    await expectAccessible(page);
    await screenshots(page, 'admin-overview-open');

    const form = await get(t, '/dashboard/signup', visitor);
    expect(form.status).toBe(200);
    expect((await get(t, '/dashboard/login', visitor)).text).toContain('href="/dashboard/signup"');
    const created = await post(t, '/dashboard/signup', visitor, {
      _csrf: csrfOf(form),
      email: 'joined@example.com',
      password: 'joined password',
      confirm: 'joined password',
    });
    expect(created.status).toBe(303);

    await page.getByRole('button', { name: 'Close sign-up' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/admin?done=closed`);
    await expect(page.locator('.stat-value').first().textContent()).resolves.toBe('4');
    await context.close();

    const stranger = new CookieJar();
    const login = await get(t, '/dashboard/login', stranger);
    expect(login.text).not.toContain('/dashboard/signup');
    expect((await get(t, '/dashboard/signup', stranger)).status).toBe(404);
    const late = await post(t, '/dashboard/signup', stranger, {
      _csrf: csrfOf(login),
      email: 'late@example.com',
      password: 'late password 1',
      confirm: 'late password 1',
    });
    expect(late.status).toBe(404);
    expect(await t.database.db.selectFrom('users').select('id').where('email', '=', 'late@example.com').execute()).toEqual([]);
  });

  it('lists every organization with its owner, members and plan', async () => {
    const actor = accounts.actorOfUser({ ...alice, plan: 'pro' });
    const org = await accounts.createOrganization(t.services, actor, { name: 'Acme <Labs>' });
    await accounts.addMember(t.services, actor, { organizationId: org.id, email: bob.email, role: 'viewer' });

    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 } });
    await signInBrowser(page, t.baseUrl, owner.email);
    await page.goto(`${t.baseUrl}/dashboard/admin`);
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Organizations' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/admin/organizations`);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Acme <Labs>' }) });
    await expect(row.locator('td[data-label="Owner"]').textContent()).resolves.toBe(alice.email);
    await expect(row.locator('td[data-label="Members"]').textContent()).resolves.toBe('2');
    await expect(row.locator('td[data-label="Plan"]').textContent()).resolves.toBe('Pro');
    await expectAccessible(page);
    await screenshots(page, 'admin-organizations');
    await context.close();
  });

  it('pages and searches the users list; the search is text, not a pattern', async () => {
    for (let i = 0; i < 51; i++) {
      await accounts.createUser(t.services, OPERATOR, {
        email: `paged${String(i).padStart(2, '0')}@example.org`,
        password: PASSWORD,
        plan: 'free',
      });
    }
    const jar = await signInHttp(t, owner.email);
    const first = await get(t, '/dashboard/admin/users?q=%40example.org', jar);
    expect(first.text).toContain('1–50 of 51');
    expect(first.text).toContain('href="/dashboard/admin/users?q=%40example.org&amp;page=2"');
    const second = await get(t, '/dashboard/admin/users?q=%40example.org&page=2', jar);
    expect(second.text).toContain('51–51 of 51');
    expect(second.text).toContain('paged50@example.org');
    expect(second.text).not.toContain('paged00@example.org');
    // LIKE wildcards are searched as themselves.
    const wildcard = await get(t, '/dashboard/admin/users?q=paged_0', jar);
    expect(wildcard.text).toContain('No user’s email contains this text.');
  });

  // The command line is another process: its write reaches the server's key cache through the
  // database's change feed (SQLite's data_version, PostgreSQL's notifications), not in memory.
  it('tagsvc user disable / enable do the same from the command line, and the server drops the cached key', async () => {
    const dave = await createAccount(t, 'pro');
    const jar = await signInHttp(t, dave.email);
    expect(await meStatus(t, dave.key)).toBe(200);
    expect(await meStatus(t, dave.key)).toBe(200); // from the server's key cache
    const disabled = await runCli(['user', 'disable', '--email', dave.email, '--json'], t.env);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(JSON.parse(disabled.stdout)).toEqual({ id: dave.userId, email: dave.email, disabled: true, sessions_ended: 1 });
    expect(await isSignedIn(t, jar)).toBe(false);
    expect(await meStatus(t, dave.key)).toBe(401);

    const ownerRefused = await runCli(['user', 'disable', '--email', owner.email, '--json'], t.env);
    expect(ownerRefused.code).toBe(1);
    expect(JSON.parse(ownerRefused.stderr).error.code).toBe('forbidden');

    const enabled = await runCli(['user', 'enable', '--email', dave.email, '--json'], t.env);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(await meStatus(t, dave.key)).toBe(200);
  });
});
