import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { expectError, request, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { newPage, useBrowser } from '../helpers/browser.js';

/** A page of another origin (another port on 127.0.0.1): a browser client of the API. */
async function startPageServer() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Client</title><p>A browser client of tagsvc</p></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const ALLOWED = 'https://app.example.com';
const preflight = (t: TestApp, path: string, origin: string) =>
  request(t, 'OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    },
  });

describe('CORS for /v1 (CORS_ORIGINS)', () => {
  const holder = useBrowser();
  let allowedPage: Awaited<ReturnType<typeof startPageServer>>;
  let otherPage: Awaited<ReturnType<typeof startPageServer>>;
  beforeAll(async () => {
    allowedPage = await startPageServer();
    otherPage = await startPageServer();
  });
  afterAll(async () => {
    allowedPage.close();
    otherPage.close();
  });
  const t = useApp(async () => ({ env: { CORS_ORIGINS: `${ALLOWED}, ${allowedPage.origin}`, RATE_LIMITS: 'true' } }));
  const alice = useAccount(t);

  it('answers a preflight from an allowed origin with 204, the methods, headers and max-age', async () => {
    const response = await preflight(t, '/v1/tags', ALLOWED);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE');
    const allowedHeaders = response.headers.get('access-control-allow-headers')!.toLowerCase().split(', ');
    expect(allowedHeaders).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-api-key']));
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toContain('Origin');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    // Answered before authentication: a browser sends no key with a preflight.
    expect(response.text).toBe('');
  });

  it('gives a disallowed origin no Access-Control-Allow-Origin', async () => {
    const response = await preflight(t, '/v1/tags', 'https://evil.example');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const actual = await request(t, 'GET', '/v1/me', { key: alice.key, headers: { origin: 'https://evil.example' } });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('adds the headers to actual requests, errors included, and exposes what clients read', async () => {
    const me = await request(t, 'GET', '/v1/me', { key: alice.key, headers: { origin: ALLOWED } });
    expect(me.status).toBe(200);
    expect(me.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const exposed = me.headers.get('access-control-expose-headers')!.toLowerCase().split(', ');
    expect(exposed).toEqual(
      expect.arrayContaining(['x-request-id', 'x-ratelimit-remaining', 'retry-after', 'idempotent-replayed', 'original-request-id']),
    );
    const refused = await request(t, 'GET', '/v1/me', { headers: { origin: ALLOWED } });
    expectError(refused, 401, 'unauthorized');
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('never adds CORS headers to the dashboard, the public pages or the operations endpoints', async () => {
    const tag = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Public' } });
    for (const path of ['/dashboard/login', `/t/${tag.body.data.short_id}`, '/healthz']) {
      const response = await request(t, 'GET', path, { headers: { origin: ALLOWED } });
      expect(response.status, path).toBeLessThan(400);
      expect(response.headers.get('access-control-allow-origin'), path).toBeNull();
      const options = await preflight(t, path, ALLOWED);
      expect(options.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(options.status, path).not.toBe(204);
    }
  });

  it('lets a page of an allowed origin call /v1 with fetch(), and a page of another origin not', async () => {
    const { context, page } = await newPage(holder.browser);
    try {
      const call = (key: string, api: string) =>
        page.evaluate(
          async ({ key, api }) => {
            try {
              const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'browser-1' };
              const me = await fetch(`${api}/v1/me`, { headers: { authorization: headers.authorization } });
              const body = (await me.json()) as { data: { email: string } };
              const create = () =>
                fetch(`${api}/v1/folders`, { method: 'POST', headers, body: JSON.stringify({ name: 'From a browser' }) });
              await create();
              const replay = await create();
              return {
                status: me.status,
                email: body.data.email,
                remaining: me.headers.get('x-ratelimit-remaining'),
                replayed: replay.headers.get('idempotent-replayed'),
              };
            } catch (error) {
              return { error: String(error) };
            }
          },
          { key, api },
        );

      await page.goto(allowedPage.origin);
      expect(await call(alice.key, t.baseUrl)).toEqual({
        status: 200,
        email: alice.email,
        remaining: expect.stringMatching(/^\d+$/),
        replayed: 'true',
      });

      await page.goto(otherPage.origin);
      expect(await call(alice.key, t.baseUrl)).toEqual({ error: expect.stringContaining('Failed to fetch') });
    } finally {
      await context.close();
    }
  });
});

describe('without CORS_ORIGINS', () => {
  const t = useApp();
  const alice = useAccount(t);

  it('sends no CORS headers and has no preflight route, as before', async () => {
    const me = await request(t, 'GET', '/v1/me', { key: alice.key, headers: { origin: ALLOWED } });
    expect(me.status).toBe(200);
    expect(me.headers.get('access-control-allow-origin')).toBeNull();
    expectError(await preflight(t, '/v1/tags', ALLOWED), 404, 'not_found');
  });
});

describe('with CORS_ORIGINS=*', () => {
  const t = useApp({ env: { CORS_ORIGINS: '*' } });

  it('allows any origin', async () => {
    const response = await preflight(t, '/v1/tags', 'https://anywhere.example');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('CORS_ORIGINS validation', () => {
  it('takes origins as browsers send them, and refuses anything else naming the variable', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:3000', SECRET_KEY: 'x'.repeat(32) }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:3000',
    ]);
    for (const bad of ['https://a.example/app', 'a.example', 'ftp://a.example', 'https://A.example', 'https://a.example,']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad, SECRET_KEY: 'x'.repeat(32) }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ORIGINS: bad, SECRET_KEY: 'x'.repeat(32) }), bad).toThrow(/CORS_ORIGINS/);
    }
  });
});
