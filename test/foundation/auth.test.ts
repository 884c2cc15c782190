import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/features/accounts/permissions.js';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createAccount, createKey, expectError, request, startTestApp, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';

describe('authentication', () => {
  const t = useApp({ env: { TRUST_PROXY: 'loopback' } });

  it('accepts the key as a Bearer token and as X-API-Key', async () => {
    const account = await createAccount(t);
    const bearer = await request(t, 'GET', '/v1/me', { key: account.key });
    expect(bearer.status).toBe(200);
    expect(bearer.body.data.email).toBe(account.email);
    const header = await request(t, 'GET', '/v1/me', { headers: { 'x-api-key': account.key } });
    expect(header.status).toBe(200);
    expect(header.body.data.id).toBe(account.userId);
  });

  it('answers 401 unauthorized for a missing key', async () => {
    expectError(await request(t, 'GET', '/v1/me'), 401, 'unauthorized');
  });

  it('answers 401 for malformed keys and keys with a bad checksum, without a lookup', async () => {
    const account = await createAccount(t);
    expectError(await request(t, 'GET', '/v1/me', { key: 'not-a-key' }), 401, 'unauthorized');
    const lastChar = account.key.at(-1) === 'a' ? 'b' : 'a';
    expectError(await request(t, 'GET', '/v1/me', { key: account.key.slice(0, -1) + lastChar }), 401, 'unauthorized');
  });

  it('answers 401 for a well-formed key that does not exist', async () => {
    const account = await createAccount(t);
    const { key } = await createKey(t, account.email);
    await accounts.deleteKey(t.services, OPERATOR, {
      id: (await accounts.listKeys(t.services, OPERATOR, { email: account.email })).at(-1)!.id,
    });
    expectError(await request(t, 'GET', '/v1/me', { key }), 401, 'unauthorized');
  });

  it('answers 401 for a disabled key and accepts it again once enabled', async () => {
    const account = await createAccount(t);
    const created = await createKey(t, account.email);
    await accounts.setKeyEnabled(t.services, OPERATOR, { id: created.id, enabled: false });
    const denied = await request(t, 'GET', '/v1/me', { key: created.key });
    expectError(denied, 401, 'unauthorized');
    expect(denied.body.error.message).toMatch(/disabled/);
    await accounts.setKeyEnabled(t.services, OPERATOR, { id: created.id, enabled: true });
    expect((await request(t, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
  });

  it('stops the old value at once when a key is regenerated', async () => {
    const account = await createAccount(t);
    const created = await createKey(t, account.email);
    const regenerated = await accounts.regenerateKey(t.services, OPERATOR, { id: created.id });
    expectError(await request(t, 'GET', '/v1/me', { key: created.key }), 401, 'unauthorized');
    const fresh = await request(t, 'GET', '/v1/me', { key: regenerated.key });
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.key.id).toBe(created.id);
  });

  it('answers 403 forbidden for a Free plan account', async () => {
    const account = await createAccount(t, 'free');
    const response = await request(t, 'GET', '/v1/me', { key: account.key });
    expectError(response, 403, 'forbidden');
    expect(response.body.error.message).toMatch(/Pro or Enterprise/);
  });

  it('lets any valid key with any permission read /v1/me (the permission matrix so far)', async () => {
    const account = await createAccount(t);
    for (const permission of PERMISSIONS) {
      const { key } = await createKey(t, account.email, { permissions: permission });
      const response = await request(t, 'GET', '/v1/me', { key });
      expect(response.status, permission).toBe(200);
      expect(response.body.data.key.permissions).toEqual([permission]);
    }
  });

  it('describes the key and organization in /v1/me', async () => {
    const owner = await createAccount(t, 'pro');
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme', ownerEmail: owner.email, plan: 'enterprise' });
    const orgKey = await createKey(t, owner.email, { organizationId: org.id, permissions: 'tags:read,tags:write', test: true, name: 'ci' });
    const response = await request(t, 'GET', '/v1/me', { key: orgKey.key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        id: owner.userId,
        email: owner.email,
        plan: 'enterprise',
        key: { id: orgKey.id, name: 'ci', permissions: ['tags:read', 'tags:write'], environment: 'test', scope: 'organization' },
        organization: { id: org.id, name: 'Acme' },
      },
    });
    const personal = await request(t, 'GET', '/v1/me', { key: owner.key });
    expect(personal.body.data.plan).toBe('pro');
    expect(personal.body.data.key.environment).toBe('live');
    expect(personal.body.data.key.scope).toBe('personal');
    expect(personal.body.data.organization).toBeUndefined();
  });

  it('takes the environment from the key prefix', async () => {
    const account = await createAccount(t);
    const testKey = await createKey(t, account.email, { test: true });
    expect(testKey.key.startsWith('svc_test_')).toBe(true);
    expect(account.key.startsWith('svc_live_')).toBe(true);
    expect((await request(t, 'GET', '/v1/me', { key: testKey.key })).body.data.key.environment).toBe('test');
  });

  describe('IP restrictions', () => {
    const cases: Array<[string, string, number]> = [
      ['203.0.113.0/24', '203.0.113.77', 200],
      ['203.0.113.0/24', '203.0.114.1', 403],
      ['198.51.100.7', '198.51.100.7', 200],
      ['198.51.100.7', '198.51.100.8', 403],
      ['2001:db8:abcd::/48', '2001:db8:abcd:12::1', 200],
      ['2001:db8:abcd::/48', '2001:db8:abce::1', 403],
      ['2001:db8::1', '2001:db8::1', 200],
      ['10.0.0.0/8,2001:db8::/32', '2001:db8:ffff::9', 200],
      ['10.0.0.0/8,2001:db8::/32', '192.0.2.1', 403],
      ['::ffff:192.0.2.0/120', '192.0.2.9', 200],
    ];
    it.each(cases)('allow list %s and client %s → %i', async (allow, client, status) => {
      const account = await createAccount(t);
      const { key } = await createKey(t, account.email, { ip: allow });
      const response = await request(t, 'GET', '/v1/me', { key, headers: { 'x-forwarded-for': client } });
      if (status === 200) expect(response.status).toBe(200);
      else expectError(response, 403, 'forbidden');
    });

    it('ignores X-Forwarded-For from untrusted peers', async () => {
      const direct = await startTestApp();
      try {
        const account = await createAccount(direct);
        const { key } = await createKey(direct, account.email, { ip: '203.0.113.5' });
        expectError(await request(direct, 'GET', '/v1/me', { key, headers: { 'x-forwarded-for': '203.0.113.5' } }), 403, 'forbidden');
        const loopback = await createKey(direct, account.email, { ip: '127.0.0.0/8' });
        expect((await request(direct, 'GET', '/v1/me', { key: loopback.key })).status).toBe(200);
      } finally {
        await direct.close();
      }
    });

    it('matches a real IPv6 client address', async () => {
      const dual = await startTestApp({ host: '::1' });
      try {
        const account = await createAccount(dual);
        const allowed = await createKey(dual, account.email, { ip: '::1/128' });
        const denied = await createKey(dual, account.email, { ip: '127.0.0.1' });
        const baseUrl = dual.baseUrl.replace('127.0.0.1', '[::1]');
        expect((await request(dual, 'GET', '/v1/me', { key: allowed.key, baseUrl })).status).toBe(200);
        expectError(await request(dual, 'GET', '/v1/me', { key: denied.key, baseUrl }), 403, 'forbidden');
      } finally {
        await dual.close();
      }
    });
  });

  it('limits failed authentication attempts per client address', async () => {
    const limited = await startTestApp({ env: { TRUST_PROXY: 'loopback' } });
    try {
      const account = await createAccount(limited);
      const attacker = { 'x-forwarded-for': '192.0.2.50' };
      for (let i = 0; i < 100; i++) {
        const response = await request(limited, 'GET', '/v1/me', { key: `svc_live_guess${i}`, headers: attacker });
        expect(response.status).toBe(401);
      }
      const blocked = await request(limited, 'GET', '/v1/me', { key: account.key, headers: attacker });
      expectError(blocked, 429, 'rate_limit_exceeded');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(61);
      expect(blocked.body.error.retry_after).toBe(retryAfter);
      // Another address is not affected.
      expect((await request(limited, 'GET', '/v1/me', { key: account.key, headers: { 'x-forwarded-for': '192.0.2.51' } })).status).toBe(
        200,
      );
      limited.clock.advance(retryAfter * 1000);
      expect((await request(limited, 'GET', '/v1/me', { key: account.key, headers: attacker })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('records last_used_at at most once a minute', async () => {
    const account = await createAccount(t);
    const created = await createKey(t, account.email);
    t.clock.freeze();
    await request(t, 'GET', '/v1/me', { key: created.key });
    const first = await waitForLastUsed(t, account.email, created.id, (v) => v !== null);
    t.clock.advance(30_000);
    await request(t, 'GET', '/v1/me', { key: created.key });
    t.clock.advance(31_000);
    await request(t, 'GET', '/v1/me', { key: created.key });
    const second = await waitForLastUsed(t, account.email, created.id, (v) => v !== first);
    expect(new Date(second!).getTime() - new Date(first!).getTime()).toBe(61_000);
  });
});

async function waitForLastUsed(t: TestApp, email: string, keyId: string, done: (value: string | null) => boolean) {
  for (let i = 0; i < 100; i++) {
    const key = (await accounts.listKeys(t.services, OPERATOR, { email: email })).find((k) => k.id === keyId)!;
    if (done(key.last_used_at)) return key.last_used_at;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('last_used_at was not written');
}

describe('sandbox host rule', () => {
  const t = useApp({ env: { PUBLIC_BASE_URL: 'https://api.example.com', SANDBOX_BASE_URL: 'https://sandbox.example.com' } });

  it('refuses a live key on the sandbox host and a test key on the production host', async () => {
    const account = await createAccount(t);
    const testKey = await createKey(t, account.email, { test: true });
    const liveOnSandbox = await request(t, 'GET', '/v1/me', { key: account.key, headers: { host: 'sandbox.example.com' } });
    expectError(liveOnSandbox, 401, 'unauthorized');
    expect(liveOnSandbox.body.error.message).toContain('https://api.example.com/v1');
    const testOnProduction = await request(t, 'GET', '/v1/me', { key: testKey.key, headers: { host: 'api.example.com' } });
    expectError(testOnProduction, 401, 'unauthorized');
    expect(testOnProduction.body.error.message).toContain('https://sandbox.example.com/v1');
    expect((await request(t, 'GET', '/v1/me', { key: account.key, headers: { host: 'api.example.com' } })).status).toBe(200);
    expect((await request(t, 'GET', '/v1/me', { key: testKey.key, headers: { host: 'sandbox.example.com' } })).status).toBe(200);
  });

  it('decides by the sandbox host against every other host: no other Host name lets both kinds of key in', async () => {
    const account = await createAccount(t);
    const testKey = await createKey(t, account.email, { test: true });
    for (const host of ['127.0.0.1', 'internal-alias.example.com', 'api.example.com:8443', 'sandbox.example.com.evil.test']) {
      const testElsewhere = await request(t, 'GET', '/v1/me', { key: testKey.key, headers: { host } });
      expectError(testElsewhere, 401, 'unauthorized');
      expect(testElsewhere.body.error.message).toContain('https://sandbox.example.com/v1');
      expect((await request(t, 'GET', '/v1/me', { key: account.key, headers: { host } })).status, host).toBe(200);
    }
    for (const host of ['SANDBOX.example.com', 'sandbox.example.com:443']) {
      expectError(await request(t, 'GET', '/v1/me', { key: account.key, headers: { host } }), 401, 'unauthorized');
      expect((await request(t, 'GET', '/v1/me', { key: testKey.key, headers: { host } })).status, host).toBe(200);
    }
  });
});
