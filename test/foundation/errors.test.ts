import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { listEnvelope, pagination, PaginationQuery } from '../../src/http/envelope.js';
import { createAccount, expectError, request, startTestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { NEEDS_REDIS, TEST_REDIS_URL } from '../helpers/redis.js';

/**
 * The envelope, request ids and the shared validation rules. Fixture routes outside /v1 exercise
 * the shared pagination and body schemas until the features' own list routes exist.
 */
function fixtures(app: FastifyInstance): void {
  app.get(
    '/fixtures/list',
    { schema: { querystring: Type.Object(PaginationQuery), response: { 200: listEnvelope(Type.Integer()) } } },
    async (request) => {
      const { limit, offset } = request.query as { limit: number; offset: number };
      const all = Array.from({ length: 45 }, (_, i) => i);
      return { success: true, data: all.slice(offset, offset + limit), pagination: pagination(all.length, limit, offset) };
    },
  );
  app.post(
    '/fixtures/echo',
    {
      schema: {
        body: Type.Object(
          {
            title: Type.String({ minLength: 1 }),
            blocks: Type.Optional(
              Type.Array(Type.Object({ level: Type.Integer({ minimum: 1, maximum: 6 }) }, { additionalProperties: false })),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => ({ success: true, data: request.body }),
  );
  app.get('/fixtures/crash', async () => {
    throw new Error('SELECT secret FROM internals failed at /srv/app.js:12');
  });
}

describe('error envelope and request ids', () => {
  const t = useApp({ extend: fixtures });

  it('answers unknown routes with 404 not_found, authenticated or not', async () => {
    const account = await createAccount(t);
    expectError(await request(t, 'GET', '/v1/does-not-exist'), 404, 'not_found');
    expectError(await request(t, 'DELETE', '/v1/me', { key: account.key }), 404, 'not_found');
    expectError(await request(t, 'GET', '/nothing-here'), 404, 'not_found');
  });

  it('puts a fresh req_ id on every response, successful or not', async () => {
    const ids = new Set<string>();
    for (const path of ['/healthz', '/v1/me', '/v1/unknown', '/v1/openapi.json']) {
      const response = await request(t, 'GET', path);
      const id = response.headers.get('x-request-id');
      expect(id, path).toMatch(/^req_[0-9a-z]{26}$/);
      ids.add(id!);
    }
    expect(ids.size).toBe(4);
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const response = await request(t, 'POST', '/fixtures/echo', {
      rawBody: '{"title": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expectError(response, 400, 'invalid_request');
    expect(response.text).not.toMatch(/SyntaxError|at JSON/);
  });

  it('answers an empty JSON body where a body is needed as it answers none: 400 validation_error', async () => {
    const empty = await request(t, 'POST', '/fixtures/echo', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expectError(empty, 400, 'validation_error');
    expect(empty.body.error.message).toBe('the body must be a JSON object');
    const none = await request(t, 'POST', '/fixtures/echo');
    expectError(none, 400, 'validation_error');
    expect(none.body.error.message).toBe('the body must be a JSON object');
  });

  it('answers a body that is not JSON with 415 unsupported_media_type', async () => {
    const response = await request(t, 'POST', '/fixtures/echo', {
      rawBody: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(response, 415, 'unsupported_media_type');
    const text = await request(t, 'POST', '/fixtures/echo', { rawBody: '{"title":"x"}', headers: { 'content-type': 'text/plain' } });
    expectError(text, 415, 'unsupported_media_type');
  });

  it('answers bodies over 1 MB with 400 invalid_request', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(1024 * 1024) });
    expectError(
      await request(t, 'POST', '/fixtures/echo', { rawBody: big, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
  });

  it('names the offending field of a schema violation', async () => {
    expectError(await request(t, 'POST', '/fixtures/echo', { body: {} }), 400, 'validation_error', 'title');
    expectError(await request(t, 'POST', '/fixtures/echo', { body: { title: 42 } }), 400, 'validation_error', 'title');
    expectError(await request(t, 'POST', '/fixtures/echo', { body: { title: 'a', extra: 1 } }), 400, 'validation_error', 'extra');
    const nested = await request(t, 'POST', '/fixtures/echo', { body: { title: 'a', blocks: [{ level: 1 }, { level: 9 }] } });
    expectError(nested, 400, 'validation_error', 'blocks[1].level');
    expect(nested.body.error.message).toMatch(/blocks\[1\]\.level/);
    expectError(await request(t, 'POST', '/fixtures/echo', { body: ['not', 'an', 'object'] }), 400, 'validation_error');
  });

  it('answers an unexpected fault with 500 internal_error and leaks nothing', async () => {
    const response = await request(t, 'GET', '/fixtures/crash');
    expectError(response, 500, 'internal_error');
    expect(response.text).not.toMatch(/SELECT|secret|\/srv|stack/);
  });

  describe('pagination', () => {
    it('defaults to limit 20, offset 0', async () => {
      const response = await request(t, 'GET', '/fixtures/list');
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(20);
      expect(response.body.pagination).toEqual({ total: 45, limit: 20, offset: 0, has_more: true });
    });

    it('pages to the end', async () => {
      const response = await request(t, 'GET', '/fixtures/list?limit=100&offset=40');
      expect(response.body.data).toEqual([40, 41, 42, 43, 44]);
      expect(response.body.pagination).toEqual({ total: 45, limit: 100, offset: 40, has_more: false });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
      ['offset=99999999999999999999', 'offset'],
    ])('rejects %s', async (query, field) => {
      expectError(await request(t, 'GET', `/fixtures/list?${query}`), 400, 'validation_error', field);
    });
  });
});

describe('operations endpoints', () => {
  const t = useApp();

  it('answers /healthz and /readyz without a key', async () => {
    expect((await request(t, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(t, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  it('serves an OpenAPI 3.1 document without a key, with errors for every /v1 route', async () => {
    const response = await request(t, 'GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const me = response.body.paths['/v1/me'].get;
    expect(me.responses['200']).toBeDefined();
    for (const status of ['401', '403', '429', '500']) expect(me.responses[status], status).toBeDefined();
    expect(response.body.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
  });
});

describe('/readyz and Redis', () => {
  it.skipIf(!TEST_REDIS_URL)(`is ready when the configured Redis answers${NEEDS_REDIS}`, async () => {
    const t = await startTestApp({ env: { REDIS_URL: TEST_REDIS_URL! } });
    try {
      const response = await request(t, 'GET', '/readyz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ready' });
    } finally {
      await t.close();
    }
  });

  it('answers 503 naming Redis when the configured Redis cannot be reached', async () => {
    const t = await startTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const response = await request(t, 'GET', '/readyz');
      expectError(response, 503, 'service_unavailable');
      expect(response.body.error.message).toBe('Not ready: Redis is not reachable');
      // Liveness is not readiness: the process itself still answers.
      expect((await request(t, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
