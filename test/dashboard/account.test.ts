import { describe, expect, it } from 'vitest';
import { createAccount, runCli } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { CookieJar, csrfOf, get, isSignedIn, PASSWORD, post, signInBrowser, signInHttp, watchConsole } from './support.js';

/** The Account page's password change, and the operator's reset from the command line. */
describe('dashboard account', () => {
  const holder = useBrowser();
  const t = useApp();
  const account = useAccount(t, 'enterprise');

  it('changes the password and ends every other session, keeping this one', async () => {
    const elsewhere = await signInHttp(t, account.email);
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, account.email);
    await page.getByRole('link', { name: 'Account' }).first().click();
    await page.waitForURL(`${t.baseUrl}/dashboard/account`);
    await expectAccessible(page);

    await page.getByLabel('Current password').fill('not it at all');
    await page.getByLabel('New password', { exact: true }).fill('the next password');
    await page.getByLabel('Confirm new password').fill('the next password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.locator('.field-error', { hasText: 'The current password is not correct.' }).isVisible()).resolves.toBe(true);
    expect(await isSignedIn(t, elsewhere)).toBe(true);
    await expectAccessible(page);

    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill('the next password');
    await page.getByLabel('Confirm new password').fill('the next password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/account?password=changed`);
    await expect(page.getByText('Password changed. Your other sessions were signed out.').isVisible()).resolves.toBe(true);

    expect(await isSignedIn(t, elsewhere)).toBe(false);
    await page.goto(`${t.baseUrl}/dashboard`);
    expect(page.url()).toBe(`${t.baseUrl}/dashboard`);
    // The old password no longer signs in; the new one does.
    const jar = new CookieJar();
    const form = await get(t, '/dashboard/login', jar);
    expect((await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email: account.email, password: PASSWORD })).status).toBe(401);
    expect(await isSignedIn(t, await signInHttp(t, account.email, 'the next password'))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('user set-password on the command line ends every session of the user', async () => {
    const user = await createAccount(t, 'pro');
    const one = await signInHttp(t, user.email);
    const two = await signInHttp(t, user.email);
    const result = await runCli(['user', 'set-password', '--email', user.email, '--json'], t.env, 'reset by the operator\n');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: user.userId, email: user.email, sessions_ended: 2 });
    expect(await isSignedIn(t, one)).toBe(false);
    expect(await isSignedIn(t, two)).toBe(false);
    expect(await isSignedIn(t, await signInHttp(t, user.email, 'reset by the operator'))).toBe(true);

    const unknown = await runCli(['user', 'set-password', '--email', 'ghost@example.com', '--json'], t.env, 'whatever long');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error.code).toBe('not_found');
  });
});
