import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import * as accounts from '../../src/features/accounts/index.js';
import { mailDeliveryJob } from '../../src/jobs/mail-delivery.js';
import { createAccount, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { useMailbox } from '../helpers/mailbox.js';
import { CookieJar, csrfOf, get, post, signInHttp } from '../dashboard/support.js';
import { VERIFICATION_MAILS_PER_HOUR } from '../../src/dashboard/keys/keys.routes.js';

const NEW_PASSWORD = 'newcomer password';

/** Signs up through the dashboard's form; the jar is signed in. */
async function signUp(t: TestApp, email: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const form = await get(t, '/dashboard/signup', jar);
  const response = await post(t, '/dashboard/signup', jar, { _csrf: csrfOf(form), email, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
  expect(response.status, response.text.slice(0, 300)).toBe(303);
  return jar;
}

async function createKeyThroughPage(t: TestApp, jar: CookieJar) {
  const page = await get(t, '/dashboard/keys', jar);
  return post(t, '/dashboard/keys', jar, { _csrf: csrfOf(page), name: 'first', permissions: 'tags:read' });
}

describe('email verification with SIGNUP=open', () => {
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SIGNUP: 'open', SMTP_URL: mailbox.url } }));

  it('lets a new account sign in, but create no API key until its address is verified', async () => {
    await createAccount(t);
    const email = 'newcomer@example.com';
    const jar = await signUp(t, email);
    expect((await get(t, '/dashboard', jar)).status).toBe(200);

    const keys = await get(t, '/dashboard/keys', jar);
    expect(keys.text).toContain('Confirm your email address to create keys');
    expect(keys.text).not.toContain('id="new-key-heading"');
    expect((await createKeyThroughPage(t, jar)).status).toBe(403);
    const user = await accounts.findSignedInUser(t.services, jar.cookies.get('tagsvc_session'));
    const refusal = await accounts.createKey(t.services, accounts.actorOfUser(user!), { name: 'forced' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ code: 'forbidden', message: expect.stringContaining('verify your email address first') });

    await mailDeliveryJob.run(t.services);
    const [mail] = mailbox.to(email);
    expect(mail!.message.subject).toBe('Confirm your email address for tagsvc');
    const link = mailbox.linkTo(email, '/dashboard/verify-email');
    const path = `${link.pathname}${link.search}`;
    // Following the link shows a button: a mail scanner fetching it confirms nothing.
    const page = await get(t, path, jar);
    expect(page.text).toContain('<h1>Confirm your email address</h1>');
    expect(await accounts.isEmailVerified(t.services, user!.userId)).toBe(false);
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1]!;
    const confirmed = await post(t, '/dashboard/verify-email', jar, { _csrf: csrfOf(page), token });
    expect(confirmed.status).toBe(303);
    expect((await get(t, confirmed.headers.get('location')!, jar)).text).toContain('<h1>Address confirmed</h1>');

    const created = await createKeyThroughPage(t, jar);
    expect(created.status).toBe(200);
    expect(created.text).toContain('Key “first” created');

    const again = await post(t, '/dashboard/verify-email', jar, { _csrf: csrfOf(page), token });
    expect(again.status).toBe(410);
    expect(again.text).toContain('<h1>This link was already used</h1>');
    const entries = await t.database.db.selectFrom('audit_log').select('action').where('target_id', '=', user!.userId).execute();
    expect(entries.filter((entry) => entry.action === 'user.email_verified')).toHaveLength(1);
  });

  it('sends a new link from the API Keys page, which works signed out too', async () => {
    const email = 'resend@example.com';
    const jar = await signUp(t, email);
    const keys = await get(t, '/dashboard/keys', jar);
    const resent = await post(t, '/dashboard/keys/verification', jar, { _csrf: csrfOf(keys) });
    expect(resent.headers.get('location')).toBe('/dashboard/keys?verification=sent');
    expect((await get(t, '/dashboard/keys?verification=sent', jar)).text).toContain(`A new link is on its way to ${email}`);
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to(email)).toHaveLength(2);
    const link = mailbox.linkTo(email, '/dashboard/verify-email');
    // Signed out (another browser) as well.
    const elsewhere = new CookieJar();
    const page = await get(t, `${link.pathname}${link.search}`, elsewhere);
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1]!;
    expect((await post(t, '/dashboard/verify-email', elsewhere, { _csrf: csrfOf(page), token })).status).toBe(303);
    expect((await createKeyThroughPage(t, jar)).status).toBe(200);
  });

  it('sends at most VERIFICATION_MAILS_PER_HOUR links an hour for one account', async () => {
    const email = 'many-links@example.com';
    const jar = await signUp(t, email);
    const keys = await get(t, '/dashboard/keys', jar);
    for (let i = 0; i < VERIFICATION_MAILS_PER_HOUR + 2; i++) {
      const resent = await post(t, '/dashboard/keys/verification', jar, { _csrf: csrfOf(keys) });
      expect(resent.headers.get('location')).toBe('/dashboard/keys?verification=sent');
    }
    await mailDeliveryJob.run(t.services);
    // The sign-up's own mail, then the resent ones up to the limit.
    expect(mailbox.to(email)).toHaveLength(1 + VERIFICATION_MAILS_PER_HOUR);
  });

  it('counts accounts made by the command line as verified', async () => {
    const { email } = await createAccount(t);
    const jar = await signInHttp(t, email);
    const keys = await get(t, '/dashboard/keys', jar);
    expect(keys.text).not.toContain('Confirm your email address');
    expect(keys.text).toContain('id="new-key-heading"');
    expect((await createKeyThroughPage(t, jar)).status).toBe(200);
  });
});

describe('email verification without SMTP_URL', () => {
  const t = useApp({ env: { SIGNUP: 'open' } });

  it('says on the sign-up and API Keys pages where the link is', async () => {
    await createAccount(t);
    const signup = await get(t, '/dashboard/signup', new CookieJar());
    expect(signup.text).toContain('We mail you a link to confirm your address.');
    expect(signup.text).toContain('Mail is not configured on this server');
    const jar = await signUp(t, 'offline@example.com');
    expect((await get(t, '/dashboard/keys', jar)).text).toContain('Mail is not configured on this server');
  });
});
