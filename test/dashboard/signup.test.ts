import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { CookieJar, csrfOf, get, post, submitNewAccount, watchConsole } from './support.js';

/** Sign-up: a 404 unless SIGNUP=open; then new accounts get SIGNUP_PLAN. */
describe('dashboard sign-up', () => {
  const holder = useBrowser();

  describe('closed (the default)', () => {
    const t = useApp();
    beforeAll(async () => {
      await createAccount(t, 'pro');
    });

    it('has no sign-up page and takes no sign-up form', async () => {
      const jar = new CookieJar();
      const page = await get(t, '/dashboard/signup', jar);
      expect(page.status).toBe(404);
      expect(page.text).toContain('<h1>Page not found</h1>');
      const login = await get(t, '/dashboard/login', jar);
      expect(login.text).not.toContain('/dashboard/signup');
      const posted = await post(t, '/dashboard/signup', jar, {
        _csrf: csrfOf(login),
        email: 'new@example.com',
        password: 'new password 1',
        confirm: 'new password 1',
      });
      expect(posted.status).toBe(404);
      const users = await t.database.db.selectFrom('users').select('email').where('email', '=', 'new@example.com').execute();
      expect(users).toEqual([]);
    });
  });

  describe('open', () => {
    const t = useApp({ env: { SIGNUP: 'open', SIGNUP_PLAN: 'free' } });
    beforeAll(async () => {
      await createAccount(t, 'pro');
    });

    it('creates an account on SIGNUP_PLAN, not the owner, and signs it in', async () => {
      const { context, page } = await newPage(holder.browser);
      const problems = watchConsole(page);
      await page.goto(`${t.baseUrl}/dashboard/login`);
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.waitForURL(`${t.baseUrl}/dashboard/signup`);
      await expectAccessible(page);
      // No minlength on the field: the server's rule answers, the same for every client.
      await submitNewAccount(page, 'newcomer@example.com', 'short');
      await expect(page.locator('.field-error', { hasText: 'Password must be at least 8 characters.' }).isVisible()).resolves.toBe(true);
      await expectAccessible(page);

      await submitNewAccount(page, 'newcomer@example.com', 'newcomer password');
      await page.waitForURL(`${t.baseUrl}/dashboard`);
      await expect(page.getByRole('banner').getByText('newcomer@example.com').isVisible()).resolves.toBe(true);
      await expect(page.getByRole('banner').getByText('Free').isVisible()).resolves.toBe(true);
      const row = await t.database.db
        .selectFrom('users')
        .select(['plan', 'is_owner'])
        .where('email', '=', 'newcomer@example.com')
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ plan: 'free', is_owner: 0 });
      // The new account made itself: its entry names it, from the sign-up's request.
      const created = await t.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'user.created')
        .where('actor_name', '=', 'newcomer@example.com')
        .execute();
      expect(created).toEqual([
        expect.objectContaining({ actor_type: 'user', details: '{"plan":"free","via":"signup"}', ip: '127.0.0.0' }),
      ]);
      expect(created[0]!.request_id).toMatch(/^req_/);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('refuses an email that is taken', async () => {
      const jar = new CookieJar();
      const form = await get(t, '/dashboard/signup', jar);
      const first = { _csrf: csrfOf(form), email: 'twice@example.com', password: 'twice password', confirm: 'twice password' };
      expect((await post(t, '/dashboard/signup', jar, first)).status).toBe(303);
      const again = new CookieJar();
      const second = await post(t, '/dashboard/signup', again, { ...first, _csrf: csrfOf(await get(t, '/dashboard/signup', again)) });
      expect(second.status).toBe(400);
      expect(second.text).toContain('already exists');
      expect((await request(t, 'GET', '/healthz')).status).toBe(200);
    });
  });
});
