import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import type { Page } from 'playwright-core';
import { createAccount } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { PASSWORD, screenshots, signInBrowser, watchConsole } from './support.js';

/**
 * Two-factor sign-in in Chromium: passkeys through its virtual authenticator (DevTools
 * protocol), the authenticator app with codes computed from the secret the page shows.
 * WebAuthn needs a secure context and an RP id that is a domain: http://localhost is one, so the
 * app is reached and configured (PUBLIC_BASE_URL) at localhost on a port chosen beforehand.
 */

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

let base = '';

/** A virtual platform authenticator with discoverable credentials and user verification, as a phone or laptop has. */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${base}/dashboard/login?signed_out`);
}

/** Signs out, then in again with the password: the second step asks for the second factor. */
async function signOutAndGivePassword(page: Page, email: string): Promise<void> {
  await signOut(page);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${base}/dashboard/login/second-factor`);
}

describe('two-factor sign-in in the browser', () => {
  const holder = useBrowser();
  const t = useApp(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    return { port, host: '::', env: { PUBLIC_BASE_URL: base } };
  });

  it('registers a passkey, then signs in with it alone and as the second factor', async () => {
    const user = await createAccount(t, 'pro');
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await addVirtualAuthenticator(page);
    await signInBrowser(page, base, user.email);
    await page.goto(`${base}/dashboard/account`);
    await page.getByRole('link', { name: 'Manage two-factor sign-in' }).click();
    await page.waitForURL(`${base}/dashboard/account/two-factor`);
    await expectAccessible(page);

    await page.getByLabel('Passkey name').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    // The first second factor brings the ten recovery codes, shown once.
    await page.getByRole('heading', { name: 'Passkey added' }).waitFor();
    expect((await page.locator('#recovery-codes').innerText()).trim().split('\n')).toHaveLength(10);
    await page.getByRole('link', { name: 'I have saved them' }).click();
    await page.waitForURL(`${base}/dashboard/account/two-factor`);
    await expect(page.getByRole('rowheader', { name: 'Work laptop' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('10 of 10 unused.').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'two-factor-passkeys');

    // Passwordless: the passkey alone, verified by the device.
    await signOut(page);
    await expectAccessible(page);
    await screenshots(page, 'sign-in-with-passkey');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${base}/dashboard`);

    // After the password, the passkey is the second factor.
    await signOutAndGivePassword(page, user.email);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${base}/dashboard`);

    // Removed (after the browser's confirm), it no longer signs in, and sign-in takes the password alone.
    await page.goto(`${base}/dashboard/account/two-factor`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    await page.waitForURL(`${base}/dashboard/account/two-factor?done=passkey-removed`);
    await expect(page.getByText('No passkeys yet.').isVisible()).resolves.toBe(true);
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByText('The passkey could not be verified.').waitFor();
    await signInBrowser(page, base, user.email);

    const actions = await t.database.db.selectFrom('audit_log').select('action').where('target_id', '=', user.userId).execute();
    expect(actions.map((row) => row.action)).toEqual(expect.arrayContaining(['user.passkey_added', 'user.passkey_removed']));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sets up the authenticator app from its QR page, then signs in with its code', async () => {
    const user = await createAccount(t, 'pro');
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, base, user.email);
    await page.goto(`${base}/dashboard/account/two-factor`);
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    await page.waitForURL(`${base}/dashboard/account/two-factor/totp`);
    await expect(page.getByRole('img', { name: 'QR code of the authenticator secret' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'two-factor-enrolment');

    const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    await page.getByLabel('Authentication code').fill(totp.generate({ timestamp: t.clock.now().getTime() }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    expect((await page.locator('#recovery-codes').innerText()).trim().split('\n')).toHaveLength(10);
    await screenshots(page, 'two-factor-recovery-codes');
    await page.getByRole('link', { name: 'I have saved them' }).click();
    await page.waitForURL(`${base}/dashboard/account/two-factor`);

    await signOutAndGivePassword(page, user.email);
    await expectAccessible(page);
    await screenshots(page, 'two-factor-second-step');
    t.clock.advance(30_000);
    await page.getByLabel('Authentication code').fill(totp.generate({ timestamp: t.clock.now().getTime() }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(problems).toEqual([]);
    await context.close();
  });
});
