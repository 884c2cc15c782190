import { describe, expect, it } from 'vitest';
import { createAccount, startTestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { CookieJar, csrfOf, get, isSignedIn, PASSWORD, post, signInHttp } from './support.js';

/**
 * Every POST needs the form token of this browser and a same-origin Origin (or Referer); a
 * refused request changes nothing, which each test checks through the database or by signing in.
 */
describe('dashboard CSRF and security headers', () => {
  const t = useApp();
  const account = useAccount(t, 'pro');

  const passwordChange = (csrf?: string) => ({
    ...(csrf !== undefined ? { _csrf: csrf } : {}),
    current_password: PASSWORD,
    new_password: 'a brand new password',
    confirm: 'a brand new password',
  });

  async function passwordHash(): Promise<string> {
    const row = await t.database.db.selectFrom('users').select('password_hash').where('id', '=', account.userId).executeTakeFirstOrThrow();
    return row.password_hash;
  }

  function expectRefused(response: { status: number; text: string; headers: Headers }) {
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.text).toContain('<h1>Request refused</h1>');
    expect(response.text).toContain('nothing was changed');
  }

  it('refuses a password change without a token, with a foreign Origin or Referer, or with no origin at all', async () => {
    const jar = await signInHttp(t, account.email);
    const token = csrfOf(await get(t, '/dashboard/account', jar));
    const before = await passwordHash();

    expectRefused(await post(t, '/dashboard/account/password', jar, passwordChange()));
    expectRefused(await post(t, '/dashboard/account/password', jar, passwordChange('x'.repeat(token.length))));
    expectRefused(await post(t, '/dashboard/account/password', jar, passwordChange(token), { origin: 'https://evil.example' }));
    expectRefused(await post(t, '/dashboard/account/password', jar, passwordChange(token), { referer: 'https://evil.example/page' }));
    expectRefused(await post(t, '/dashboard/account/password', jar, passwordChange(token), {}));
    expect(await passwordHash()).toBe(before);

    // The same request from the page itself goes through: the refusals above were for their reasons.
    const accepted = await post(t, '/dashboard/account/password', jar, passwordChange(token), {
      referer: `${t.baseUrl}/dashboard/account`,
    });
    expect(accepted.status).toBe(303);
    expect(await passwordHash()).not.toBe(before);
    const restore = await post(t, '/dashboard/account/password', jar, {
      _csrf: token,
      current_password: 'a brand new password',
      new_password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(restore.status).toBe(303);
  });

  it("refuses another browser's token, and a sign-out without a token signs nobody out", async () => {
    const victim = await signInHttp(t, account.email);
    const attacker = await signInHttp(t, account.email);
    const attackerToken = csrfOf(await get(t, '/dashboard/account', attacker));
    expectRefused(await post(t, '/dashboard/logout', victim, {}));
    expectRefused(await post(t, '/dashboard/logout', victim, { _csrf: attackerToken }));
    expect(await isSignedIn(t, victim)).toBe(true);
  });

  it('refuses a sign-in form posted from another site (login CSRF)', async () => {
    const jar = new CookieJar();
    const token = csrfOf(await get(t, '/dashboard/login', jar));
    const foreign = await post(
      t,
      '/dashboard/login',
      jar,
      { _csrf: token, email: account.email, password: PASSWORD },
      { origin: 'http://evil.example' },
    );
    expectRefused(foreign);
    // Without the pre-session cookie the token means nothing.
    const noCookie = await post(t, '/dashboard/login', new CookieJar(), { _csrf: token, email: account.email, password: PASSWORD });
    expectRefused(noCookie);
    expect(jar.cookies.has('tagsvc_session')).toBe(false);
  });

  it('sends a strict CSP and no-store on every page, and cookies that scripts cannot read', async () => {
    const jar = await signInHttp(t, account.email);
    for (const path of ['/dashboard', '/dashboard/account', '/dashboard/nowhere']) {
      const response = await get(t, path, jar);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).toContain("base-uri 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      expect(response.headers.get('cache-control')).toBe('no-store');
      // No inline script or style for the CSP to have to allow.
      expect(response.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(response.text).not.toMatch(/\sstyle=/);
      expect(response.text).not.toMatch(/<style/);
    }
    const login = await get(t, '/dashboard/login', new CookieJar());
    expect(login.headers.get('set-cookie')).toMatch(/^tagsvc_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('marks cookies Secure when PUBLIC_BASE_URL is https', async () => {
    const secure = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://tags.example.com' } });
    try {
      await createAccount(secure, 'pro');
      const login = await get(secure, '/dashboard/login', new CookieJar());
      expect(login.headers.get('set-cookie')).toContain('; Secure');
    } finally {
      await secure.close();
    }
  });

  it('escapes what users typed', async () => {
    const jar = new CookieJar();
    const token = csrfOf(await get(t, '/dashboard/login', jar));
    const response = await post(t, '/dashboard/login', jar, { _csrf: token, email: '"><script>alert(1)</script>', password: 'x' });
    expect(response.status).toBe(401);
    expect(response.text).not.toContain('<script>alert(1)</script>');
    expect(response.text).toContain('value="&quot;>&lt;script>alert(1)&lt;/script>"');
  });
});
