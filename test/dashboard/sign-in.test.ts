import { createHash, randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../src/features/accounts/index.js';
import { createAccount, startTestApp, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { describeWithRedis } from '../helpers/redis.js';
import { CookieJar, csrfOf, get, isSignedIn, PASSWORD, post, signInBrowser, signInHttp, watchConsole } from './support.js';

const MINUTE = 60_000;

/** Sign-in and sign-out, sessions and their expiry, and throttled guessing. */
describe('dashboard sign-in', () => {
  const holder = useBrowser();
  const t = useApp();
  const account = useAccount(t, 'pro');

  it('signs in and out in the browser; the old session cookie then no longer works', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await page.goto(`${t.baseUrl}/dashboard`);
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/login`);
    await expectAccessible(page);
    await signInBrowser(page, t.baseUrl, account.email);
    // The keyboard's first stop is the skip link, which moves focus to the content.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    await expect(page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents()).resolves.toEqual([
      'Home',
      'Tags',
      'Analytics',
      'Webhooks',
      'API Keys',
      'Organizations',
      'Audit log',
    ]);
    await expect(page.getByRole('banner').getByText(account.email).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('banner').getByText('Pro').isVisible()).resolves.toBe(true);
    await expectAccessible(page);

    const session = (await context.cookies()).find((cookie) => cookie.name === 'tagsvc_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
    const stolen = new CookieJar();
    stolen.cookies.set('tagsvc_session', session.value);
    expect(await isSignedIn(t, stolen)).toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/login?signed_out`);
    await expect(page.getByText('You have been signed out.').isVisible()).resolves.toBe(true);
    expect((await context.cookies()).some((cookie) => cookie.name === 'tagsvc_session')).toBe(false);
    // The token was only deleted on the server's side: replaying it over plain HTTP gets nowhere.
    expect(await isSignedIn(t, stolen)).toBe(false);
    await page.goto(`${t.baseUrl}/dashboard`);
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/login`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('gives every sign-in a new session; only the token hash is stored', async () => {
    const jar = new CookieJar();
    jar.cookies.set('tagsvc_session', 'attacker-chosen-value');
    const form = await get(t, '/dashboard/login', jar);
    expect(form.status).toBe(200);
    await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email: account.email, password: PASSWORD });
    const first = jar.cookies.get('tagsvc_session')!;
    expect(first).not.toBe('attacker-chosen-value');
    // Signing in again from the same browser (a sign-in form left open) replaces its session.
    const accountPage = await get(t, '/dashboard/account', jar);
    await post(t, '/dashboard/login', jar, { _csrf: csrfOf(accountPage), email: account.email, password: PASSWORD });
    const second = jar.cookies.get('tagsvc_session')!;
    expect(second).not.toBe(first);
    const replay = new CookieJar();
    replay.cookies.set('tagsvc_session', first);
    expect(await isSignedIn(t, replay)).toBe(false);
    expect(await isSignedIn(t, jar)).toBe(true);
    const rows = await t.database.db.selectFrom('sessions').selectAll().where('user_id', '=', account.userId).execute();
    const stored = JSON.stringify(rows);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(stored).not.toContain(second);
    expect(stored).toContain(createHash('sha256').update(second).digest('hex'));
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const jar = new CookieJar();
    const form = await get(t, '/dashboard/login', jar);
    const wrong = await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email: account.email, password: 'not the password' });
    const unknown = await post(t, '/dashboard/login', jar, {
      _csrf: csrfOf(form),
      email: 'nobody@example.com',
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (text: string) => /<div class="alert alert-error" role="alert">([^<]*)<\/div>/.exec(text)?.[1];
    expect(message(wrong.text)).toBe('Incorrect email or password.');
    expect(message(unknown.text)).toBe(message(wrong.text));
    expect(jar.cookies.has('tagsvc_session')).toBe(false);
  });

  it('ends sessions after 7 idle days or 30 days in all, whatever the activity', async () => {
    const idle = await signInHttp(t, account.email);
    t.clock.advance(SESSION_IDLE_MS - MINUTE);
    expect(await isSignedIn(t, idle)).toBe(true);
    // Activity moved the idle expiry forward.
    t.clock.advance(SESSION_IDLE_MS - MINUTE);
    expect(await isSignedIn(t, idle)).toBe(true);
    t.clock.advance(SESSION_IDLE_MS);
    expect(await isSignedIn(t, idle)).toBe(false);

    const busy = await signInHttp(t, account.email);
    for (let elapsed = 0; elapsed + 6 * 24 * 60 * MINUTE < SESSION_ABSOLUTE_MS; elapsed += 6 * 24 * 60 * MINUTE) {
      t.clock.advance(6 * 24 * 60 * MINUTE);
      expect(await isSignedIn(t, busy)).toBe(true);
    }
    t.clock.advance(6 * 24 * 60 * MINUTE);
    expect(await isSignedIn(t, busy)).toBe(false);
  });

  it('signs a disabled user out at once', async () => {
    const other = await createAccount(t, 'free');
    const jar = await signInHttp(t, other.email);
    expect(await isSignedIn(t, jar)).toBe(true);
    await t.database.db.updateTable('users').set({ disabled: 1 }).where('id', '=', other.userId).execute();
    expect(await isSignedIn(t, jar)).toBe(false);
  });
});

describeWithRedis('dashboard sign-in throttling shared through Redis', (redisUrl) => {
  // Two instances on one Redis: failures counted by either count for both. A fresh client
  // address and email keep this run's counters apart from any other run's.
  const env = { REDIS_URL: redisUrl, TRUST_PROXY: 'loopback' };
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp({ env }), startTestApp({ env })]);
    await Promise.all([createAccount(a), createAccount(b)]);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  it('refuses the 11th failure in a minute on whichever instance it reaches', async () => {
    const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`;
    const email = `guess-${randomBytes(6).toString('hex')}@example.com`;
    const attempt = async (t: TestApp) => {
      const jar = new CookieJar();
      const form = await get(t, '/dashboard/login', jar);
      return post(
        t,
        '/dashboard/login',
        jar,
        { _csrf: csrfOf(form), email, password: 'guess' },
        { origin: t.baseUrl, 'x-forwarded-for': address },
      );
    };
    for (let i = 0; i < 10; i++) expect((await attempt(i % 2 === 0 ? a : b)).status).toBe(401);
    expect((await attempt(a)).status).toBe(429);
    expect((await attempt(b)).status).toBe(429);
  });
});

describe('dashboard sign-in throttling', () => {
  const t = useApp();
  const account = useAccount(t, 'pro');

  async function attempt(email: string, password: string) {
    const jar = new CookieJar();
    const form = await get(t, '/dashboard/login', jar);
    return post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email, password });
  }

  it('refuses the 11th attempt in a minute, even with the right password, then lets it through', async () => {
    t.clock.freeze();
    for (let i = 0; i < 10; i++) expect((await attempt(account.email, `wrong ${i}`)).status).toBe(401);
    const refused = await attempt(account.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/Too many attempts, try again in \d+ seconds\./);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Unknown emails count the same way, so the answer tells nothing about which exist.
    const unknown = await attempt('nobody@example.com', 'guess');
    expect(unknown.status).toBe(429);

    t.clock.advance(2 * MINUTE);
    expect((await attempt(account.email, PASSWORD)).status).toBe(303);
  });
});
