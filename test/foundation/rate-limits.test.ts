import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyValue } from '../../src/features/accounts/key-format.js';
import { createAccount, createKey, expectError, request, type TestApp } from '../helpers/app.js';
import { describeOnce, useApp } from '../helpers/harness.js';
import { describeStores, describeWithRedis } from '../helpers/redis.js';

async function burst(t: TestApp, count: number, key: string, path = '/v1/me', baseUrls = [t.baseUrl]) {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) => request(t, 'GET', path, { key, baseUrl: baseUrls[i % baseUrls.length] })),
  );
  return { ok: responses.filter((r) => r.status === 200).length, limited: responses.filter((r) => r.status === 429), responses };
}

// The limiter keeps its windows in memory or Redis, whatever the database: run once (describeOnce).
describeOnce('the rate limiter', () => {
  describeStores('rate limits', (env) => {
    const t = useApp({ env: { RATE_LIMITS: 'true', ...env } });

    it('admits exactly the per-minute limit of many parallel requests', async () => {
      const pro = await createAccount(t, 'pro');
      const { ok, limited } = await burst(t, 100, pro.key);
      expect(ok).toBe(60);
      expect(limited).toHaveLength(40);
      for (const response of limited) expectError(response, 429, 'rate_limit_exceeded');
    });

    it('sets the headers on successes and errors, for the window closest to running out', async () => {
      const pro = await createAccount(t, 'pro');
      const first = await request(t, 'GET', '/v1/me', { key: pro.key });
      expect(first.headers.get('x-ratelimit-limit')).toBe('60');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
      const reset = Number(first.headers.get('x-ratelimit-reset'));
      const now = t.clock.now().getTime() / 1000;
      expect(reset).toBeGreaterThan(now + 59);
      expect(reset).toBeLessThanOrEqual(Math.ceil(now + 61));
      const notFound = await request(t, 'GET', '/v1/tags/tag_01m802r69tb18dkd20f3k82y80', { key: pro.key });
      expectError(notFound, 404, 'not_found');
      expect(notFound.headers.get('x-ratelimit-remaining')).toBe('58');
      const invalid = await request(t, 'POST', '/v1/tags', { key: pro.key, body: {} });
      expectError(invalid, 400, 'validation_error', 'title');
      expect(invalid.headers.get('x-ratelimit-remaining')).toBe('57');
      // Refused for a missing permission: headers say where the key stands, without counting.
      const readOnly = (await createKey(t, pro.email, { permissions: 'tags:read' })).key;
      const forbidden = await request(t, 'POST', '/v1/tags', { key: readOnly, body: { title: 'x' } });
      expectError(forbidden, 403, 'forbidden');
      expect(forbidden.headers.get('x-ratelimit-remaining')).toBe('60');
      expect((await request(t, 'GET', '/v1/me', { key: readOnly })).headers.get('x-ratelimit-remaining')).toBe('59');
    });

    it('keeps each key independent', async () => {
      const pro = await createAccount(t, 'pro');
      const other = (await createKey(t, pro.email)).key;
      const testKey = (await createKey(t, pro.email, { test: true })).key;
      expect((await burst(t, 61, pro.key)).ok).toBe(60);
      expect((await request(t, 'GET', '/v1/me', { key: other })).status).toBe(200);
      const sandbox = await request(t, 'GET', '/v1/me', { key: testKey });
      expect(sandbox.status).toBe(200);
      expect(sandbox.headers.get('x-ratelimit-limit')).toBe('60');
    });

    it('uses the Enterprise numbers for Enterprise keys', async () => {
      const enterprise = await createAccount(t, 'enterprise');
      const response = await request(t, 'GET', '/v1/me', { key: enterprise.key });
      expect(response.headers.get('x-ratelimit-limit')).toBe('300');
      expect((await burst(t, 310, enterprise.key)).ok).toBe(299);
    });

    it('applies the QR bucket (30/min) on top of the key’s own windows', async () => {
      const enterprise = await createAccount(t, 'enterprise');
      const tag = (await request(t, 'POST', '/v1/tags', { key: enterprise.key, body: { title: 'qr' } })).body.data;
      const { ok, limited } = await burst(t, 35, enterprise.key, `/v1/tags/${tag.id}/qr?size=64`);
      expect(ok).toBe(30);
      expect(limited).toHaveLength(5);
      expect(limited[0]!.headers.get('x-ratelimit-limit')).toBe('30');
      expect(limited[0]!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await request(t, 'GET', '/v1/me', { key: enterprise.key })).status).toBe(200);
    });

    it('applies the bulk bucket (5/min) to batch creation', async () => {
      const enterprise = await createAccount(t, 'enterprise');
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        statuses.push((await request(t, 'POST', '/v1/tags/batch', { key: enterprise.key, body: { tags: [{ title: `b${i}` }] } })).status);
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
      expect((await request(t, 'POST', '/v1/tags', { key: enterprise.key, body: { title: 'single' } })).status).toBe(201);
    });
  });

  describe('rolling minute and honest Retry-After (injected clock)', () => {
    const t = useApp({ env: { RATE_LIMITS: 'true' } });

    it('a burst at the end of one minute and the start of the next cannot exceed the limit', async () => {
      const pro = await createAccount(t, 'pro');
      t.clock.freeze(new Date('2026-06-01T10:00:59.500Z'));
      expect((await burst(t, 60, pro.key)).ok).toBe(60);
      t.clock.freeze(new Date('2026-06-01T10:01:00.500Z'));
      const next = await burst(t, 60, pro.key);
      expect(next.ok).toBe(0);
      const retryAfter = Number(next.limited[0]!.headers.get('retry-after'));
      expect(next.limited[0]!.body.error.retry_after).toBe(retryAfter);
      expect(retryAfter).toBeGreaterThanOrEqual(59);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // One second before Retry-After: still refused. At Retry-After: admitted again.
      t.clock.advance((retryAfter - 1) * 1000);
      expect((await request(t, 'GET', '/v1/me', { key: pro.key })).status).toBe(429);
      t.clock.advance(1000);
      expect((await burst(t, 61, pro.key)).ok).toBe(60);
    });

    it('does not count refused requests', async () => {
      const pro = await createAccount(t, 'pro');
      t.clock.freeze(new Date('2026-06-02T08:00:00.000Z'));
      expect((await burst(t, 30, pro.key)).ok).toBe(30);
      t.clock.advance(30_000);
      expect((await burst(t, 30, pro.key)).ok).toBe(30);
      expect((await burst(t, 50, pro.key)).ok).toBe(0);
      // The first 30 leave the window; if the 50 refused ones had counted, nothing would be admitted.
      t.clock.advance(31_000);
      expect((await burst(t, 40, pro.key)).ok).toBe(30);
    });

    it('enforces the hour window across many minutes', async () => {
      const pro = await createAccount(t, 'pro');
      t.clock.freeze(new Date('2026-06-03T00:00:00.000Z'));
      let admitted = 0;
      for (let minute = 0; minute < 17; minute++) {
        admitted += (await burst(t, 60, pro.key)).ok;
        t.clock.advance(61_000);
      }
      expect(admitted).toBe(1000);
      const refused = await request(t, 'GET', '/v1/me', { key: pro.key });
      expectError(refused, 429, 'rate_limit_exceeded');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('1000');
      const retryAfter = refused.body.error.retry_after;
      expect(retryAfter).toBeGreaterThan(60);
      t.clock.advance(retryAfter * 1000);
      expect((await request(t, 'GET', '/v1/me', { key: pro.key })).status).toBe(200);
    });
  });

  describeWithRedis('two server processes sharing Redis', (redisUrl) => {
    const t = useApp({ env: { RATE_LIMITS: 'true', REDIS_URL: redisUrl } });
    let child: ChildProcess;
    let childUrl: string;
    beforeAll(async () => {
      child = spawn(process.execPath, ['bin/tagsvc', 'serve', '--no-worker'], {
        env: { PATH: process.env.PATH ?? '', ...t.env, RATE_LIMITS: 'true', REDIS_URL: redisUrl, PORT: '0', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      childUrl = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
      });
    });
    afterAll(async () => {
      child.kill('SIGTERM');
    });

    it('admit exactly the limit in total', async () => {
      const pro = await createAccount(t, 'pro');
      const { ok, responses } = await burst(t, 120, pro.key, '/v1/me', [t.baseUrl, childUrl]);
      expect(ok).toBe(60);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(60);
    });
  });

  describe('Redis unreachable', () => {
    const t = useApp({ env: { RATE_LIMITS: 'true', REDIS_URL: 'redis://127.0.0.1:1' } });

    it('answers 503 service_unavailable instead of admitting everything', async () => {
      const pro = await createAccount(t, 'pro');
      const response = await request(t, 'GET', '/v1/me', { key: pro.key });
      expectError(response, 503, 'service_unavailable');
      expect(response.headers.get('retry-after')).toBe('2');
    });
  });

  describe('RATE_LIMIT_MULTIPLIER', () => {
    const t = useApp({ env: { RATE_LIMITS: 'true', RATE_LIMIT_MULTIPLIER: '2' } });

    it('scales every plan limit', async () => {
      const pro = await createAccount(t, 'pro');
      expect((await request(t, 'GET', '/v1/me', { key: pro.key })).headers.get('x-ratelimit-limit')).toBe('120');
      expect((await burst(t, 130, pro.key)).ok).toBe(119);
    });
  });

  describeStores('failed authentication under concurrency', (env) => {
    const t = useApp({ env: { TRUST_PROXY: 'loopback', ...env } });

    it('300 concurrent bad keys from one address: exactly 100 get 401, the rest 429', async () => {
      // A fresh address per run: the Redis store keeps its counters between test runs.
      const address = `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          // Well-formed keys that exist nowhere: each costs a database look-up, as a real guess does.
          request(t, 'GET', '/v1/me', {
            key: i % 2 ? generateKeyValue('live') : `svc_live_guess${i}`,
            headers: { 'x-forwarded-for': address },
          }),
        ),
      );
      expect(responses.filter((r) => r.status === 401)).toHaveLength(100);
      const limited = responses.filter((r) => r.status === 429);
      expect(limited).toHaveLength(200);
      for (const response of limited) expectError(response, 429, 'rate_limit_exceeded');
      // Still refused afterwards, and another address is not affected.
      expectError(
        await request(t, 'GET', '/v1/me', { key: 'svc_live_again', headers: { 'x-forwarded-for': address } }),
        429,
        'rate_limit_exceeded',
      );
      expect((await request(t, 'GET', '/v1/me', { key: 'svc_live_other', headers: { 'x-forwarded-for': '2001:db8::1' } })).status).toBe(
        401,
      );
    });
  });
});
