import { describe, expect, it } from 'vitest';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { CookieJar, csrfOf, get, post, submitNewAccount, watchConsole } from './support.js';
import { useApp } from '../helpers/harness.js';

/** First run: with no account yet, the dashboard offers to create the instance owner. */
describe('dashboard first run', () => {
  const holder = useBrowser();
  const t = useApp();

  it('creates the owner on the enterprise plan and signs them in', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    // A browser opening the service's root lands on the setup form.
    await page.goto(`${t.baseUrl}/`);
    expect(page.url()).toBe(`${t.baseUrl}/dashboard`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Set up tagsvc');
    await expectAccessible(page);

    // Mismatched confirmation: nothing is created, the email stays filled in.
    await submitNewAccount(page, 'Owner@Example.com', 'owner password 1', 'something else');
    await expect(page.locator('.field-error', { hasText: 'The two passwords do not match.' }).isVisible()).resolves.toBe(true);
    expect(await t.database.db.selectFrom('users').select('id').execute()).toEqual([]);
    await expectAccessible(page);

    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('Owner@Example.com');
    await submitNewAccount(page, 'Owner@Example.com', 'owner password 1');
    await page.waitForURL(`${t.baseUrl}/dashboard`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Home');
    const banner = page.getByRole('banner');
    await expect(banner.getByText('owner@example.com').isVisible()).resolves.toBe(true);
    await expect(banner.getByText('Enterprise').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);

    const users = await t.database.db.selectFrom('users').select(['email', 'plan', 'is_owner']).execute();
    expect(users).toEqual([{ email: 'owner@example.com', plan: 'enterprise', is_owner: 1 }]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('offers sign-in, not setup, once an account exists; a replayed setup form creates nothing', async () => {
    const jar = new CookieJar();
    const login = await get(t, '/dashboard/login', jar);
    expect(login.status).toBe(200);
    expect(login.text).toContain('<h1>Sign in</h1>');
    const setup = await post(t, '/dashboard/setup', jar, {
      _csrf: csrfOf(login),
      email: 'second@example.com',
      password: 'second password',
      confirm: 'second password',
    });
    expect(setup.status).toBe(303);
    expect(setup.headers.get('location')).toBe('/dashboard/login');
    const users = await t.database.db.selectFrom('users').select(['email', 'is_owner']).orderBy('email').execute();
    expect(users).toEqual([{ email: 'owner@example.com', is_owner: 1 }]);
  });
});
