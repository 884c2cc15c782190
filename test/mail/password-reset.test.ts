import { describe, expect, it } from 'vitest';
import { createAccount, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { useMailbox, type Mailbox } from '../helpers/mailbox.js';
import { mailDeliveryJob } from '../../src/jobs/mail-delivery.js';
import { RESET_MAILS_PER_EMAIL_HOUR, RESET_REQUESTS_PER_CLIENT_HOUR } from '../../src/dashboard/auth/password-reset.routes.js';
import { CookieJar, csrfOf, get, isSignedIn, PASSWORD, post, signInHttp } from '../dashboard/support.js';

const HOUR = 60 * 60 * 1000;

/** Sends the forgot-password form for `email` as a signed-out browser. */
async function askForLink(t: TestApp, email: string) {
  const jar = new CookieJar();
  const form = await get(t, '/dashboard/forgot-password', jar);
  return post(t, '/dashboard/forgot-password', jar, { _csrf: csrfOf(form), email });
}

/** The reset link of the last mail to `email`, as a path and query on the test server (the mail names PUBLIC_BASE_URL). */
async function mailedLink(t: TestApp, mailbox: Mailbox, email: string): Promise<string> {
  await mailDeliveryJob.run(t.services);
  const link = mailbox.linkTo(email, '/dashboard/reset-password');
  expect(link.origin).toBe('http://tagsvc.test');
  return `${link.pathname}${link.search}`;
}

async function setPassword(t: TestApp, path: string, password: string, confirm = password) {
  const jar = new CookieJar();
  const page = await get(t, path, jar);
  if (page.status !== 200) return page;
  const token = /name="token" value="([^"]+)"/.exec(page.text)![1]!;
  return post(t, '/dashboard/reset-password', jar, { _csrf: csrfOf(page), token, password, confirm });
}

describe('forgot password', () => {
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url } }));

  it('is linked from the sign-in page', async () => {
    await createAccount(t);
    const login = await get(t, '/dashboard/login', new CookieJar());
    expect(login.text).toContain('<a href="/dashboard/forgot-password">Forgot your password?</a>');
  });

  it('answers the same for an address with an account and one without', async () => {
    const { email } = await createAccount(t);
    const known = await askForLink(t, email);
    const unknown = await askForLink(t, 'nobody@example.com');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const answer = (text: string, address: string) => /<main[\s\S]*<\/main>/.exec(text)![0].replaceAll(address, 'ADDRESS');
    expect(answer(known.text, email)).toBe(answer(unknown.text, 'nobody@example.com'));
    expect(known.text).toContain('a link to choose a new password is on its way there');
    expect(known.text).not.toContain('Mail is not configured');
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to(email)).toHaveLength(1);
    expect(mailbox.to('nobody@example.com')).toHaveLength(0);
  });

  it('sets a new password through the mailed link, ends every session, and spends the link', async () => {
    const { email, userId } = await createAccount(t);
    const [first, second] = [await signInHttp(t, email), await signInHttp(t, email)];
    await askForLink(t, email);
    const path = await mailedLink(t, mailbox, email);
    const [mail] = mailbox.to(email);
    expect(mail!.message.subject).toBe('Reset your tagsvc password');
    expect(mail!.message.html).toContain(`href="http://tagsvc.test${path}"`);

    // A refused password leaves the link unspent.
    const mismatched = await setPassword(t, path, 'brand new password', 'another one');
    expect(mismatched.status).toBe(400);
    expect(mismatched.text).toContain('The two passwords do not match.');
    const short = await setPassword(t, path, 'short');
    expect(short.status).toBe(400);
    expect(short.text).toContain('Password must be at least 8 characters.');

    const done = await setPassword(t, path, 'brand new password');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/dashboard/reset-password?done');
    expect((await get(t, '/dashboard/reset-password?done', new CookieJar())).text).toContain('<h1>Password changed</h1>');

    expect(await isSignedIn(t, first)).toBe(false);
    expect(await isSignedIn(t, second)).toBe(false);
    const jar = new CookieJar();
    const login = await get(t, '/dashboard/login', jar);
    expect((await post(t, '/dashboard/login', jar, { _csrf: csrfOf(login), email, password: PASSWORD })).status).toBe(401);
    expect(await isSignedIn(t, await signInHttp(t, email, 'brand new password'))).toBe(true);

    const again = await setPassword(t, path, 'a third password');
    expect(again.status).toBe(410);
    expect(again.text).toContain('<h1>This link was already used</h1>');
    expect(again.text).toContain('href="/dashboard/forgot-password"');

    const entries = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'target_id', 'actor_type'])
      .where('target_id', '=', userId)
      .execute();
    expect(entries.filter((entry) => entry.action === 'user.password_reset')).toEqual([
      { action: 'user.password_reset', target_id: userId, actor_type: 'anonymous' },
    ]);
  });

  it('keeps a link one hour, by the clock', async () => {
    const { email } = await createAccount(t);
    await askForLink(t, email);
    const path = await mailedLink(t, mailbox, email);
    t.clock.advance(HOUR - 60_000);
    expect((await get(t, path, new CookieJar())).status).toBe(200);
    t.clock.advance(60_000);
    const expired = await setPassword(t, path, 'too late password');
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('<h1>This link has expired</h1>');
    expect(await isSignedIn(t, await signInHttp(t, email))).toBe(true);
  });

  it('a new password spends the user’s other reset links', async () => {
    const { email } = await createAccount(t);
    await askForLink(t, email);
    const older = await mailedLink(t, mailbox, email);
    await askForLink(t, email);
    const newer = await mailedLink(t, mailbox, email);
    expect(newer).not.toBe(older);
    expect((await setPassword(t, newer, 'brand new password')).status).toBe(303);
    expect((await get(t, older, new CookieJar())).status).toBe(410);
  });

  it('says so for a link that is not one', async () => {
    const page = await get(t, '/dashboard/reset-password?token=made-up', new CookieJar());
    expect(page.status).toBe(410);
    expect(page.text).toContain('<h1>This link does not work</h1>');
  });
});

describe('forgot password limits', () => {
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url } }));

  it('mails an address a few links an hour, then answers the same and sends none', async () => {
    const { email } = await createAccount(t);
    for (let i = 0; i <= RESET_MAILS_PER_EMAIL_HOUR; i++) expect((await askForLink(t, email)).status).toBe(200);
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to(email)).toHaveLength(RESET_MAILS_PER_EMAIL_HOUR);
  });

  it('refuses a client that asks too often, with Retry-After', async () => {
    for (let i = RESET_MAILS_PER_EMAIL_HOUR + 1; i < RESET_REQUESTS_PER_CLIENT_HOUR; i++) {
      expect((await askForLink(t, `someone${i}@example.com`)).status).toBe(200);
    }
    const refused = await askForLink(t, 'one-more@example.com');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many attempts');
  });
});

describe('forgot password without SMTP_URL', () => {
  const t = useApp();

  it('says that mail is not configured and the link is in the server log', async () => {
    const page = await get(t, '/dashboard/forgot-password', new CookieJar());
    expect(page.text).toContain('Mail is not configured on this server');
    const { email } = await createAccount(t);
    expect((await askForLink(t, email)).text).toContain('the link, which is in the server log');
  });
});
