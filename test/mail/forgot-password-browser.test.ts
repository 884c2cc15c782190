import { describe, expect, it } from 'vitest';
import { mailDeliveryJob } from '../../src/jobs/mail-delivery.js';
import { createAccount } from '../helpers/app.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { useApp } from '../helpers/harness.js';
import { useMailbox } from '../helpers/mailbox.js';
import { screenshots, signInBrowser, submitNewAccount, watchConsole } from '../dashboard/support.js';

/**
 * Forgot password in a browser: the sign-in page's link → the form → the mail → a new password →
 * signed in with it. Then a new account's way to its first API key, and the weekly report's choice.
 */
describe('mail in the browser', () => {
  const holder = useBrowser();
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url, SIGNUP: 'open' } }));

  it('goes from the sign-in page to a new password and signs in with it', async () => {
    const { email } = await createAccount(t);
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);

    await page.goto(`${t.baseUrl}/dashboard/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/forgot-password`);
    await expectAccessible(page);
    await screenshots(page, 'forgot-password');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect(
      page.getByText(`If an account uses ${email}, a link to choose a new password is on its way there.`).isVisible(),
    ).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'forgot-password-sent');

    await mailDeliveryJob.run(t.services);
    const link = mailbox.linkTo(email, '/dashboard/reset-password');
    await page.goto(`${t.baseUrl}${link.pathname}${link.search}`);
    await expect(page.getByRole('heading', { name: 'Choose a new password' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Confirm new password').fill('short');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect(page.locator('.field-error', { hasText: 'Password must be at least 8 characters.' }).isVisible()).resolves.toBe(true);
    await screenshots(page, 'reset-password-refused');
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await page.getByLabel('Confirm new password').fill('a brand new password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/reset-password?done`);
    await expect(page.getByRole('heading', { name: 'Password changed' }).isVisible()).resolves.toBe(true);
    await screenshots(page, 'reset-password-done');

    await page.getByRole('link', { name: 'Sign in' }).click();
    await signInBrowser(page, t.baseUrl, email, 'a brand new password');
    await expect(page.getByRole('banner').getByText(email).isVisible()).resolves.toBe(true);

    // The link again: spent.
    await page.goto(`${t.baseUrl}${link.pathname}${link.search}`);
    await expect(page.getByRole('heading', { name: 'This link was already used' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'reset-link-used');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a new account confirms its address from the API Keys page’s mail, then creates a key', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await page.goto(`${t.baseUrl}/dashboard/signup`);
    await submitNewAccount(page, 'browser-newcomer@example.com', 'newcomer password');
    await page.waitForURL(`${t.baseUrl}/dashboard`);
    await page.goto(`${t.baseUrl}/dashboard/keys`);
    await expect(page.getByRole('heading', { name: 'Confirm your email address to create keys' }).isVisible()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Send a new link' }).click();
    await expect(page.getByText('A new link is on its way to browser-newcomer@example.com.').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'keys-unverified');

    await mailDeliveryJob.run(t.services);
    const link = mailbox.linkTo('browser-newcomer@example.com', '/dashboard/verify-email');
    await page.goto(`${t.baseUrl}${link.pathname}${link.search}`);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await expect(page.getByRole('heading', { name: 'Address confirmed' }).isVisible()).resolves.toBe(true);
    await page.getByRole('link', { name: 'Go to API keys' }).click();
    await expect(page.getByRole('heading', { name: 'New key' }).isVisible()).resolves.toBe(true);

    await page.goto(`${t.baseUrl}/dashboard/account`);
    await page.getByLabel('Mail me the weekly report').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('The weekly report is on.').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Mail me the weekly report').isChecked()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'account-weekly-report');
    expect(problems).toEqual([]);
    await context.close();
  });
});
