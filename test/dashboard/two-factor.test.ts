import { describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import * as accounts from '../../src/features/accounts/index.js';
import { randomBytes } from 'node:crypto';
import { createAccount, runCli, startTestApp, type Account, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { CookieJar, csrfOf, get, isSignedIn, PASSWORD, post, signInHttp } from './support.js';

/** Two-factor sign-in over plain HTTP: the authenticator app, recovery codes, the limits, and two factors required. */

/** The authenticator app's code for `secret` at the app's clock, `stepsLater` 30-second steps on. */
function codeAt(t: TestApp, secret: string, stepsLater = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: t.clock.now().getTime() + stepsLater * 30_000 });
}

/** Sets up the authenticator app of a signed-in jar; returns its secret and the ten recovery codes shown once. */
async function enrolTotp(t: TestApp, jar: CookieJar): Promise<{ secret: string; codes: string[] }> {
  const page = await get(t, '/dashboard/account/two-factor', jar);
  expect(page.status).toBe(200);
  const begun = await post(t, '/dashboard/account/two-factor/totp', jar, { _csrf: csrfOf(page) });
  expect(begun.headers.get('location')).toBe('/dashboard/account/two-factor/totp');
  const enrolment = await get(t, '/dashboard/account/two-factor/totp', jar);
  expect(enrolment.text).toContain('<svg');
  expect(enrolment.text).toContain('autocomplete="one-time-code"');
  expect(enrolment.text).toContain('inputmode="numeric"');
  const secret = /id="totp-secret"[^>]*><code>([A-Z2-7 ]+)<\/code>/.exec(enrolment.text)![1]!.replaceAll(' ', '');
  const wrong = await post(t, '/dashboard/account/two-factor/totp/confirm', jar, { _csrf: csrfOf(enrolment), code: '000000' });
  expect(wrong.status).toBe(400);
  expect(wrong.text).toContain('That code is not right.');
  const confirmed = await post(t, '/dashboard/account/two-factor/totp/confirm', jar, { _csrf: csrfOf(enrolment), code: codeAt(t, secret) });
  expect(confirmed.status).toBe(200);
  const codes = /id="recovery-codes"[^>]*><code>([^<]+)<\/code>/.exec(confirmed.text)![1]!.split('\n');
  return { secret, codes };
}

/** The password step: a jar holding a pending sign-in, not a session, and the second step's form token. */
async function passwordStep(t: TestApp, email: string): Promise<{ jar: CookieJar; csrf: string }> {
  const jar = new CookieJar();
  const form = await get(t, '/dashboard/login', jar);
  const response = await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email, password: PASSWORD });
  expect(response.status).toBe(303);
  expect(response.headers.get('location')).toBe('/dashboard/login/second-factor');
  expect(jar.cookies.has('tagsvc_session')).toBe(false);
  const step = await get(t, '/dashboard/login/second-factor', jar);
  expect(step.status).toBe(200);
  return { jar, csrf: csrfOf(step) };
}

async function auditActions(t: TestApp, userId: string): Promise<string[]> {
  const rows = await t.database.db.selectFrom('audit_log').select('action').where('target_id', '=', userId).orderBy('id').execute();
  return rows.map((row) => row.action);
}

describe('two-factor sign-in', () => {
  const t = useApp();

  it('sets up the authenticator app; sign-in then takes its code, once per code', async () => {
    const user = await createAccount(t, 'pro');
    const { secret, codes } = await enrolTotp(t, await signInHttp(t, user.email));
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(await auditActions(t, user.userId)).toContain('user.two_factor_enabled');
    // At rest the secret is sealed: the database alone does not give it away.
    const stored = await t.database.db
      .selectFrom('totp_credentials')
      .select('secret')
      .where('user_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(stored.secret).toMatch(/^enc1\./);
    expect(stored.secret).not.toContain(secret);

    t.clock.advance(30_000);
    const first = await passwordStep(t, user.email);
    expect(await isSignedIn(t, first.jar)).toBe(false);
    const wrong = await post(t, '/dashboard/login/second-factor', first.jar, {
      _csrf: first.csrf,
      code: '123456' === codeAt(t, secret) ? '654321' : '123456',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That code is not right.');
    const code = codeAt(t, secret);
    const right = await post(t, '/dashboard/login/second-factor', first.jar, { _csrf: first.csrf, code });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/dashboard');
    expect(await isSignedIn(t, first.jar)).toBe(true);

    // The same code again, within its window: refused. The next step's code works.
    const again = await passwordStep(t, user.email);
    expect((await post(t, '/dashboard/login/second-factor', again.jar, { _csrf: again.csrf, code })).status).toBe(401);
    t.clock.advance(30_000);
    expect((await post(t, '/dashboard/login/second-factor', again.jar, { _csrf: again.csrf, code: codeAt(t, secret) })).status).toBe(303);
    expect(await isSignedIn(t, again.jar)).toBe(true);
  });

  it('takes each recovery code once, and records its use', async () => {
    const user = await createAccount(t, 'pro');
    const { codes } = await enrolTotp(t, await signInHttp(t, user.email));
    const first = await passwordStep(t, user.email);
    // Typed in capitals with spaces: the same code.
    const typed = codes[3]!.toUpperCase().replace('-', ' ');
    expect((await post(t, '/dashboard/login/second-factor', first.jar, { _csrf: first.csrf, recovery_code: typed })).status).toBe(303);
    expect(await isSignedIn(t, first.jar)).toBe(true);
    expect(await auditActions(t, user.userId)).toContain('user.recovery_code_used');

    const second = await passwordStep(t, user.email);
    const reused = await post(t, '/dashboard/login/second-factor', second.jar, { _csrf: second.csrf, recovery_code: codes[3]! });
    expect(reused.status).toBe(401);
    expect(reused.text).toContain('That recovery code is not right, or was used already.');
    expect((await post(t, '/dashboard/login/second-factor', second.jar, { _csrf: second.csrf, recovery_code: codes[4]! })).status).toBe(
      303,
    );

    const home = await get(t, '/dashboard/account/two-factor', second.jar);
    expect(home.text).toContain('8 of 10 unused.');

    // SECRET_KEY changed without the old one in SECRET_KEY_PREVIOUS: the app's secret cannot be
    // opened, but a recovery code still signs in (and the password turns the app off).
    const secretKey = t.config.secretKey;
    t.config.secretKey = 'another secret key of at least 32 characters';
    try {
      const third = await passwordStep(t, user.email);
      expect((await post(t, '/dashboard/login/second-factor', third.jar, { _csrf: third.csrf, code: '123456' })).status).toBe(401);
      expect((await post(t, '/dashboard/login/second-factor', third.jar, { _csrf: third.csrf, recovery_code: codes[5]! })).status).toBe(
        303,
      );
    } finally {
      t.config.secretKey = secretKey;
    }
    const renewed = await post(t, '/dashboard/account/two-factor/recovery-codes', second.jar, { _csrf: csrfOf(home), confirmed: 'yes' });
    expect(renewed.text).toContain('id="recovery-codes"');
    expect(await auditActions(t, user.userId)).toContain('user.recovery_codes_regenerated');
  });

  it('ends a pending sign-in after five wrong codes, and one left too long', async () => {
    const user = await createAccount(t, 'pro');
    const { secret } = await enrolTotp(t, await signInHttp(t, user.email));
    t.clock.advance(30_000);
    const { jar, csrf } = await passwordStep(t, user.email);
    const wrongCode = codeAt(t, secret) === '111111' ? '222222' : '111111';
    for (let attempt = 1; attempt <= 4; attempt++) {
      const wrong = await post(t, '/dashboard/login/second-factor', jar, { _csrf: csrf, code: wrongCode });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('That code is not right.');
    }
    const fifth = await post(t, '/dashboard/login/second-factor', jar, { _csrf: csrf, code: wrongCode });
    expect(fifth.text).toContain('Too many wrong codes, or the sign-in took too long. Sign in again.');
    // Each wrong code is in the user's own log: whoever typed it knows the password.
    expect((await auditActions(t, user.userId)).filter((action) => action === 'user.sign_in_failed')).toHaveLength(5);
    // The right code no longer helps: the password comes first again.
    const late = await post(t, '/dashboard/login/second-factor', jar, { _csrf: csrf, code: codeAt(t, secret) });
    expect(late.text).toContain('Sign in again.');
    expect(await isSignedIn(t, jar)).toBe(false);
    expect((await get(t, '/dashboard/login/second-factor', jar)).headers.get('location')).toBe('/dashboard/login');

    const slow = await passwordStep(t, user.email);
    t.clock.advance(accounts.PENDING_SIGN_IN_MS);
    const expired = await post(t, '/dashboard/login/second-factor', slow.jar, { _csrf: slow.csrf, code: codeAt(t, secret) });
    expect(expired.text).toContain('Sign in again.');
    expect(await isSignedIn(t, slow.jar)).toBe(false);
  });

  it('tagsvc user reset-two-factor takes every second factor away and signs the user out', async () => {
    const user = await createAccount(t, 'pro');
    const jar = await signInHttp(t, user.email);
    await enrolTotp(t, jar);
    const result = await runCli(['user', 'reset-two-factor', '--email', user.email, '--json'], t.env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      id: user.userId,
      email: user.email,
      authenticator_removed: true,
      passkeys_removed: 0,
      sessions_ended: 1,
    });
    expect(await isSignedIn(t, jar)).toBe(false);
    expect(await isSignedIn(t, await signInHttp(t, user.email))).toBe(true);
    expect(await auditActions(t, user.userId)).toContain('user.two_factor_disabled');
    const unknown = await runCli(['user', 'reset-two-factor', '--email', 'ghost@example.com', '--json'], t.env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error.code).toBe('not_found');
  });

  it('turns the app off with the password, after which sign-in takes the password alone', async () => {
    const user = await createAccount(t, 'pro');
    const jar = await signInHttp(t, user.email);
    await enrolTotp(t, jar);
    const page = await get(t, '/dashboard/account/two-factor', jar);
    const refused = await post(t, '/dashboard/account/two-factor/totp/disable', jar, { _csrf: csrfOf(page), code_or_password: 'not it' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Enter a current code from your app, or your password.');
    const off = await post(t, '/dashboard/account/two-factor/totp/disable', jar, { _csrf: csrfOf(page), code_or_password: PASSWORD });
    expect(off.headers.get('location')).toBe('/dashboard/account/two-factor?done=totp-off');
    expect(await auditActions(t, user.userId)).toContain('user.two_factor_disabled');
    expect(await isSignedIn(t, await signInHttp(t, user.email))).toBe(true);
  });
});

describe('passkey forms answered without a passkey', () => {
  const t = useApp();

  it('refuses an answer without its challenge, a forged one, and options without a pending sign-in', async () => {
    const user = await createAccount(t, 'pro');
    const jar = new CookieJar();
    const form = await get(t, '/dashboard/login', jar);
    const forged = JSON.stringify({ id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: {}, clientExtensionResults: {} });
    for (const response of ['', 'not json', forged]) {
      const refused = await post(t, '/dashboard/login/passkey', jar, { _csrf: csrfOf(form), response });
      expect(refused.status).toBe(401);
      expect(refused.text).toContain('The passkey could not be verified.');
    }
    // With a challenge given out, a forged answer still fails, and uses the challenge up.
    const options = await post(t, '/dashboard/login/passkey/options', jar, { _csrf: csrfOf(form) });
    expect(options.status).toBe(200);
    expect(options.body.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(options.body.rpId).toBe(new URL(t.config.publicBaseUrl).hostname);
    expect((await post(t, '/dashboard/login/passkey', jar, { _csrf: csrfOf(form), response: forged })).status).toBe(401);
    expect(await isSignedIn(t, jar)).toBe(false);

    const noPending = await post(t, '/dashboard/login/second-factor/passkey/options', jar, { _csrf: csrfOf(form) });
    expect(noPending.status).toBe(401);

    const signedIn = await signInHttp(t, user.email);
    const page = await get(t, '/dashboard/account/two-factor', signedIn);
    const registration = await post(t, '/dashboard/account/two-factor/passkeys/options', signedIn, { _csrf: csrfOf(page) });
    expect(registration.body.authenticatorSelection.residentKey).toBe('required');
    expect(registration.body.user.name).toBe(user.email);
    const added = await post(t, '/dashboard/account/two-factor/passkeys', signedIn, {
      _csrf: csrfOf(page),
      name: 'Phone',
      response: forged,
    });
    expect(added.status).toBe(400);
    expect(added.text).toContain('The passkey could not be verified.');
    const unnamed = await post(t, '/dashboard/account/two-factor/passkeys', signedIn, { _csrf: csrfOf(page), name: ' ', response: forged });
    expect(unnamed.text).toContain('Give the passkey a name, such as the device it is on.');
    expect(await t.database.db.selectFrom('passkeys').select('credential_id').execute()).toEqual([]);
  });
});

describe('two factors required by the owner', () => {
  const t = useApp();

  it('is refused to an owner without a second factor; then sends everyone without one to set it up first', async () => {
    const owner = await accounts.createFirstAccount(t.services, { email: 'owner@example.com', password: PASSWORD });
    const ownerJar = await signInHttp(t, owner.email);
    const admin = await get(t, '/dashboard/admin', ownerJar);
    const early = await post(t, '/dashboard/admin/two-factor', ownerJar, { _csrf: csrfOf(admin), two_factor: 'required' });
    expect(early.status).toBe(400);
    expect(early.text).toContain('Set up an authenticator app or a passkey for your own account');
    expect(await accounts.isTwoFactorRequired(t.services)).toBe(false);

    const { secret } = await enrolTotp(t, ownerJar);
    const required = await post(t, '/dashboard/admin/two-factor', ownerJar, { _csrf: csrfOf(admin), two_factor: 'required' });
    expect(required.headers.get('location')).toBe('/dashboard/admin?done=two-factor-required');
    const entries = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', '=', 'instance.two_factor_required')
      .execute();
    expect(entries).toEqual([{ action: 'instance.two_factor_required', details: JSON.stringify({ required: true }) }]);

    const user: Account = await createAccount(t, 'pro');
    const jar = await signInHttp(t, user.email);
    for (const path of ['/dashboard', '/dashboard/tags', '/dashboard/keys', '/dashboard/account']) {
      const response = await get(t, path, jar);
      expect(response.status, path).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard/account/two-factor');
    }
    // The owner's list of users says who has a second factor.
    const list = (await get(t, '/dashboard/admin/users', ownerJar)).text;
    const twoFactorOf = (email: string) => new RegExp(`${email}[\\s\\S]*?data-label="Two-factor"><span[^>]*>(On|Off)<`).exec(list)?.[1];
    expect(twoFactorOf(owner.email)).toBe('On');
    expect(twoFactorOf(user.email)).toBe('Off');

    const enrolPage = await get(t, '/dashboard/account/two-factor', jar);
    expect(enrolPage.text).toContain('This instance requires two-factor sign-in.');
    await enrolTotp(t, jar);
    expect((await get(t, '/dashboard', jar)).status).toBe(200);

    // The last second factor cannot be turned off while they are required.
    const page = await get(t, '/dashboard/account/two-factor', jar);
    const off = await post(t, '/dashboard/account/two-factor/totp/disable', jar, { _csrf: csrfOf(page), code_or_password: PASSWORD });
    expect(off.status).toBe(403);

    t.clock.advance(30_000);
    const ownerAgain = await passwordStep(t, owner.email);
    expect(
      (await post(t, '/dashboard/login/second-factor', ownerAgain.jar, { _csrf: ownerAgain.csrf, code: codeAt(t, secret) })).status,
    ).toBe(303);
  });
});

describe('authenticator secrets across a SECRET_KEY rotation', () => {
  const t = useApp();

  it('opens them with SECRET_KEY_PREVIOUS, and `secrets rotate` re-encrypts them under the new key', async () => {
    const user = await createAccount(t, 'pro');
    const { secret } = await enrolTotp(t, await signInHttp(t, user.email));
    const kidOf = async () =>
      (
        await t.database.db.selectFrom('totp_credentials').select('secret').where('user_id', '=', user.userId).executeTakeFirstOrThrow()
      ).secret.split('.')[1];
    const oldKid = await kidOf();
    const newKey = randomBytes(32).toString('hex');
    /** Signs in on `app` with the password and the app's code of the next step (each step's code is taken once). */
    const signInWithCode = async (app: TestApp) => {
      app.clock.advance(30_000);
      const { jar, csrf } = await passwordStep(app, user.email);
      const response = await post(app, '/dashboard/login/second-factor', jar, { _csrf: csrf, code: codeAt(app, secret) });
      expect(response.status).toBe(303);
    };

    const rotating = await startTestApp({ env: { ...t.env, SECRET_KEY: newKey, SECRET_KEY_PREVIOUS: t.env.SECRET_KEY! } });
    try {
      rotating.clock.freeze(t.clock.now());
      await signInWithCode(rotating);
      const rotated = await runCli(['secrets', 'rotate', '--json'], rotating.env);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(JSON.parse(rotated.stdout)).toEqual({
        webhook_secrets: 0,
        reencrypted: 0,
        authenticator_secrets: 1,
        authenticator_reencrypted: 1,
      });
      expect(await kidOf()).not.toBe(oldKid);
    } finally {
      await rotating.close();
    }

    // SECRET_KEY_PREVIOUS gone: the app still works.
    const rotatedOnly = await startTestApp({ env: { ...t.env, SECRET_KEY: newKey } });
    try {
      rotatedOnly.clock.freeze(t.clock.now());
      rotatedOnly.clock.advance(60_000);
      await signInWithCode(rotatedOnly);
    } finally {
      await rotatedOnly.close();
    }
  });
});
