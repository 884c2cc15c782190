import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createKey, expectError, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { Receiver } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv } from './support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const WH_ID = /^wh_[0-9a-z]{26}$/;
const UNKNOWN_ID = 'wh_01jzzzzzzzzzzzzzzzzzzzzzzz';

describe('webhooks: create, read, update, delete', () => {
  const t = useApp(async () => ({ env: await deliveryEnv() }));
  const alice = useAccount(t, 'pro');
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver.close());

  it('POST creates a webhook with a generated whsec_ secret and defaults', async () => {
    const before = t.clock.now().getTime();
    const response = await request(t, 'POST', '/v1/webhooks', {
      key: alice.key,
      body: { name: 'Orders', url: receiver.url, events: ['tag.created', 'tag.deleted'] },
    });
    expect(response.status).toBe(201);
    const data = response.body.data;
    expect(response.body.success).toBe(true);
    expect(Object.keys(data).sort()).toEqual(['created_at', 'enabled', 'events', 'headers', 'id', 'name', 'secret', 'updated_at', 'url']);
    expect(data).toEqual({
      id: expect.stringMatching(WH_ID),
      name: 'Orders',
      url: receiver.url,
      events: ['tag.created', 'tag.deleted'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
      headers: {},
      created_at: expect.stringMatching(ISO),
      updated_at: data.created_at,
    });
    // The generated secret is real random key material: at least 24 bytes once decoded.
    expect(Buffer.from(data.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(Date.parse(data.created_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(data.created_at)).toBeLessThanOrEqual(t.clock.now().getTime());

    // Two webhooks never share a generated secret.
    const other = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
    expect(other.secret).not.toBe(data.secret);
    await request(t, 'DELETE', `/v1/webhooks/${data.id}`, { key: alice.key });
    await request(t, 'DELETE', `/v1/webhooks/${other.id}`, { key: alice.key });
  });

  it('POST keeps a given secret, custom headers and enabled=false; duplicate events are kept once', async () => {
    const response = await request(t, 'POST', '/v1/webhooks', {
      key: alice.key,
      body: {
        name: '  Padded  ',
        url: receiver.url,
        events: ['qr.generated', 'tag.created', 'qr.generated'],
        secret: 'my plain secret',
        headers: { 'X-Tenant': 'acme', Authorization: 'Bearer abc' },
        enabled: false,
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      name: 'Padded',
      events: ['qr.generated', 'tag.created'],
      secret: 'my plain secret',
      headers: { 'X-Tenant': 'acme', Authorization: 'Bearer abc' },
      enabled: false,
    });
    const fetched = await request(t, 'GET', `/v1/webhooks/${response.body.data.id}`, { key: alice.key });
    expect(fetched.body.data).toEqual({
      ...response.body.data,
      stats: { total_deliveries: 0, successful: 0, failed: 0, last_delivery_at: null },
    });
    await request(t, 'DELETE', `/v1/webhooks/${response.body.data.id}`, { key: alice.key });
  });

  it('GET /v1/webhooks pages newest first, filters on enabled and lists only the caller’s', async () => {
    const owner = await createAccount(t, 'pro');
    const stranger = await createAccount(t, 'pro');
    await createWebhook(t, stranger.key, { name: 'theirs', url: receiver.url, events: ['tag.created'] });
    const first = await createWebhook(t, owner.key, { name: 'one', url: receiver.url, events: ['tag.created'] });
    const second = await createWebhook(t, owner.key, { name: 'two', url: receiver.url, events: ['tag.updated'], enabled: false });
    const third = await createWebhook(t, owner.key, { name: 'three', url: receiver.url, events: ['tag.deleted'] });

    const page1 = await request(t, 'GET', '/v1/webhooks?limit=2', { key: owner.key });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((w: { id: string }) => w.id)).toEqual([third.id, second.id]);
    expect(page1.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, has_more: true });
    expect(page1.body.data[0]).toMatchObject({
      id: third.id,
      name: 'three',
      url: receiver.url,
      events: ['tag.deleted'],
      enabled: true,
      created_at: expect.stringMatching(ISO),
    });

    const page2 = await request(t, 'GET', '/v1/webhooks?limit=2&offset=2', { key: owner.key });
    expect(page2.body.data.map((w: { id: string }) => w.id)).toEqual([first.id]);
    expect(page2.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, has_more: false });

    const enabled = await request(t, 'GET', '/v1/webhooks?enabled=true', { key: owner.key });
    expect(enabled.body.data.map((w: { id: string }) => w.id)).toEqual([third.id, first.id]);
    expect(enabled.body.pagination).toEqual({ total: 2, limit: 20, offset: 0, has_more: false });
    const disabled = await request(t, 'GET', '/v1/webhooks?enabled=false', { key: owner.key });
    expect(disabled.body.data.map((w: { id: string }) => w.id)).toEqual([second.id]);
    expect(disabled.body.data[0].enabled).toBe(false);

    expectError(await request(t, 'GET', '/v1/webhooks?enabled=maybe', { key: owner.key }), 400, 'validation_error', 'enabled');
    expectError(await request(t, 'GET', '/v1/webhooks?limit=101', { key: owner.key }), 400, 'validation_error', 'limit');
  });

  it('GET /v1/webhooks/{id} returns headers and real delivery stats', async () => {
    const owner = await createAccount(t, 'pro');
    const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'], headers: { 'X-One': '1' } });
    const empty = await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: owner.key });
    expect(empty.status).toBe(200);
    expect(empty.body.data.headers).toEqual({ 'X-One': '1' });
    expect(empty.body.data.stats).toEqual({ total_deliveries: 0, successful: 0, failed: 0, last_delivery_at: null });

    // Three deliveries made through the test endpoint: two answered 200, one answered 500.
    receiver.behaviour = 'ok';
    expect((await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key })).body.data.status).toBe('success');
    t.clock.advance(1000);
    receiver.behaviour = 'fail';
    expect((await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key })).body.data.status).toBe('failed');
    t.clock.advance(1000);
    receiver.behaviour = 'ok';
    // Sent as clients that put Content-Type: application/json on every request send it: an empty body is no body.
    const emptyJson = { rawBody: '', headers: { 'content-type': 'application/json' } };
    expect((await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key, ...emptyJson })).body.data.status).toBe('success');
    const deliveries = (await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries`, { key: owner.key })).body.data;
    expect(deliveries).toHaveLength(3);

    const stats = (await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: owner.key })).body.data.stats;
    expect(stats).toEqual({ total_deliveries: 3, successful: 2, failed: 1, last_delivery_at: deliveries[0].delivered_at });
    expect(
      deliveries
        .map((d: { delivered_at: string }) => d.delivered_at)
        .sort()
        .at(-1),
    ).toBe(stats.last_delivery_at);
  });

  it('PUT changes only the fields given and moves enabled both ways', async () => {
    const owner = await createAccount(t, 'pro');
    const original = await createWebhook(t, owner.key, {
      name: 'before',
      url: receiver.url,
      events: ['tag.created'],
      headers: { 'X-A': 'a' },
    });
    t.clock.advance(5000);
    const renamed = await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { name: 'after' } });
    expect(renamed.status).toBe(200);
    const { stats, ...view } = renamed.body.data;
    expect(view).toEqual({ ...original, name: 'after', updated_at: expect.stringMatching(ISO) });
    expect(Date.parse(view.updated_at) - Date.parse(view.created_at)).toBeGreaterThanOrEqual(5000);
    expect(stats).toEqual({ total_deliveries: 0, successful: 0, failed: 0, last_delivery_at: null });
    expect((await request(t, 'GET', `/v1/webhooks/${original.id}`, { key: owner.key })).body.data).toEqual(renamed.body.data);

    const disabled = await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { enabled: false } });
    expect(disabled.body.data).toMatchObject({
      name: 'after',
      enabled: false,
      events: ['tag.created'],
      secret: original.secret,
      headers: { 'X-A': 'a' },
    });
    expect((await request(t, 'GET', '/v1/webhooks?enabled=false', { key: owner.key })).body.data.map((w: { id: string }) => w.id)).toEqual([
      original.id,
    ]);
    expect((await request(t, 'GET', '/v1/webhooks?enabled=true', { key: owner.key })).body.data).toEqual([]);

    const enabled = await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { enabled: true } });
    expect(enabled.body.data.enabled).toBe(true);
    expect((await request(t, 'GET', `/v1/webhooks/${original.id}`, { key: owner.key })).body.data.enabled).toBe(true);

    // Headers and events are replaced as a whole; the secret can be rotated.
    const replaced = await request(t, 'PUT', `/v1/webhooks/${original.id}`, {
      key: owner.key,
      body: { events: ['tag.updated', 'qr.generated'], headers: { 'X-B': 'b' }, secret: 'rotated' },
    });
    expect(replaced.body.data).toMatchObject({
      name: 'after',
      url: receiver.url,
      events: ['tag.updated', 'qr.generated'],
      headers: { 'X-B': 'b' },
      secret: 'rotated',
      enabled: true,
    });

    expectError(
      await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { url: 'http://example.com/hook' } }),
      400,
      'invalid_url',
      'url',
    );
    expectError(
      await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { events: [] } }),
      400,
      'validation_error',
      'events',
    );
    expectError(
      await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { name: '   ' } }),
      400,
      'validation_error',
      'name',
    );
    expectError(
      await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { colour: 'red' } }),
      400,
      'validation_error',
      'colour',
    );
    expectError(
      await request(t, 'PUT', `/v1/webhooks/${original.id}`, { key: owner.key, body: { headers: { 'User-Agent': 'x' } } }),
      400,
      'validation_error',
      'headers.User-Agent',
    );
    // Refused updates changed nothing.
    expect((await request(t, 'GET', `/v1/webhooks/${original.id}`, { key: owner.key })).body.data).toMatchObject({
      name: 'after',
      url: receiver.url,
      events: ['tag.updated', 'qr.generated'],
      headers: { 'X-B': 'b' },
    });
  });

  it('DELETE answers {success, message}, then the webhook is gone', async () => {
    const owner = await createAccount(t, 'pro');
    const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
    const deleted = await request(t, 'DELETE', `/v1/webhooks/${hook.id}`, { key: owner.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: 'Webhook deleted' });
    expectError(await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: owner.key }), 404, 'not_found');
    expectError(await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: owner.key, body: { name: 'x' } }), 404, 'not_found');
    expectError(await request(t, 'DELETE', `/v1/webhooks/${hook.id}`, { key: owner.key }), 404, 'not_found');
    expectError(await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries`, { key: owner.key }), 404, 'not_found');
    expect((await request(t, 'GET', '/v1/webhooks', { key: owner.key })).body.pagination.total).toBe(0);
  });

  describe('validation', () => {
    const cases: Array<[string, Record<string, unknown>, number, string, string]> = [
      ['missing name', { url: 'https://example.com/h', events: ['tag.created'] }, 400, 'validation_error', 'name'],
      ['blank name', { name: '  ', url: 'https://example.com/h', events: ['tag.created'] }, 400, 'validation_error', 'name'],
      [
        'name with a control character',
        { name: 'a\u0000b', url: 'https://example.com/h', events: ['tag.created'] },
        400,
        'validation_error',
        'name',
      ],
      ['missing url', { name: 'n', events: ['tag.created'] }, 400, 'validation_error', 'url'],
      ['http:// url', { name: 'n', url: 'http://example.com/h', events: ['tag.created'] }, 400, 'invalid_url', 'url'],
      ['ftp:// url', { name: 'n', url: 'ftp://example.com/h', events: ['tag.created'] }, 400, 'invalid_url', 'url'],
      ['malformed url', { name: 'n', url: 'not a url', events: ['tag.created'] }, 400, 'invalid_url', 'url'],
      ['url with credentials', { name: 'n', url: 'https://user:pw@example.com/h', events: ['tag.created'] }, 400, 'invalid_url', 'url'],
      ['missing events', { name: 'n', url: 'https://example.com/h' }, 400, 'validation_error', 'events'],
      // Node would decode these to an empty key, or skip the characters that are not base64;
      // Standard Webhooks verifiers refuse them.
      [
        'whsec_ alone',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], secret: 'whsec_' },
        400,
        'validation_error',
        'secret',
      ],
      [
        'whsec_ not base64',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], secret: 'whsec_not*base64!' },
        400,
        'validation_error',
        'secret',
      ],
      [
        'whsec_ without padding',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], secret: 'whsec_AAA' },
        400,
        'validation_error',
        'secret',
      ],
      ['empty events', { name: 'n', url: 'https://example.com/h', events: [] }, 400, 'validation_error', 'events'],
      ['unknown event', { name: 'n', url: 'https://example.com/h', events: ['tag.exploded'] }, 400, 'validation_error', 'events[0]'],
      [
        'unknown second event',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created', 'nope'] },
        400,
        'validation_error',
        'events[1]',
      ],
      [
        'bad header name',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], headers: { 'bad header': 'x' } },
        400,
        'validation_error',
        'headers.bad header',
      ],
      [
        'protected webhook-signature header',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], headers: { 'webhook-signature': 'v1,forged' } },
        400,
        'validation_error',
        'headers.webhook-signature',
      ],
      [
        'protected Content-Type header',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], headers: { 'Content-Type': 'text/plain' } },
        400,
        'validation_error',
        'headers.Content-Type',
      ],
      [
        'header value with a newline',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], headers: { 'X-Ok': 'a\r\nInjected: 1' } },
        400,
        'validation_error',
        'headers.X-Ok',
      ],
      [
        'non-string header value',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], headers: { 'X-Num': 5 } },
        400,
        'validation_error',
        'headers.X-Num',
      ],
      [
        'unknown body field',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], retries: 3 },
        400,
        'validation_error',
        'retries',
      ],
      ['empty secret', { name: 'n', url: 'https://example.com/h', events: ['tag.created'], secret: '' }, 400, 'validation_error', 'secret'],
      [
        'enabled not boolean',
        { name: 'n', url: 'https://example.com/h', events: ['tag.created'], enabled: 'yes' },
        400,
        'validation_error',
        'enabled',
      ],
    ];
    it.each(cases.map(([label, body, status, code, field]) => ({ label, body, status, code, field })))(
      '$label → $status $code ($field)',
      async ({ body, status, code, field }) => {
        const response = await request(t, 'POST', '/v1/webhooks', { key: alice.key, body });
        expectError(response, status, code, field);
      },
    );

    it('nothing was created by the refused requests', async () => {
      const list = await request(t, 'GET', '/v1/webhooks', { key: alice.key });
      expect(list.body.pagination.total).toBe(0);
    });

    it('PUT checks a whsec_ secret as POST does, and keeps the old one when refused', async () => {
      const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
      expectError(
        await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: alice.key, body: { secret: 'whsec_' } }),
        400,
        'validation_error',
        'secret',
      );
      expect((await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.secret).toBe(hook.secret);
      const rotated = 'whsec_' + Buffer.alloc(24, 7).toString('base64');
      expect((await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: alice.key, body: { secret: rotated } })).body.data.secret).toBe(
        rotated,
      );
      expect((await request(t, 'DELETE', `/v1/webhooks/${hook.id}`, { key: alice.key })).status).toBe(200);
    });
  });

  describe('plan maximum', () => {
    it('Pro: the 6th webhook is 402 webhook_limit_reached; deleting one makes room', async () => {
      const pro = await createAccount(t, 'pro');
      const created = [];
      for (let i = 0; i < 5; i++)
        created.push(await createWebhook(t, pro.key, { name: `w${i}`, url: receiver.url, events: ['tag.created'] }));
      const sixth = await request(t, 'POST', '/v1/webhooks', {
        key: pro.key,
        body: { name: 'w5', url: receiver.url, events: ['tag.created'] },
      });
      expectError(sixth, 402, 'webhook_limit_reached');
      // Disabled webhooks count too.
      await request(t, 'PUT', `/v1/webhooks/${created[0]!.id}`, { key: pro.key, body: { enabled: false } });
      expectError(
        await request(t, 'POST', '/v1/webhooks', { key: pro.key, body: { name: 'w5', url: receiver.url, events: ['tag.created'] } }),
        402,
        'webhook_limit_reached',
      );
      expect((await request(t, 'GET', '/v1/webhooks', { key: pro.key })).body.pagination.total).toBe(5);
      await request(t, 'DELETE', `/v1/webhooks/${created[1]!.id}`, { key: pro.key });
      expect(
        (await request(t, 'POST', '/v1/webhooks', { key: pro.key, body: { name: 'w5', url: receiver.url, events: ['tag.created'] } }))
          .status,
      ).toBe(201);
    });

    it('Pro: many parallel creations still stop at 5', async () => {
      const pro = await createAccount(t, 'pro');
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          request(t, 'POST', '/v1/webhooks', { key: pro.key, body: { name: `p${i}`, url: receiver.url, events: ['tag.created'] } }),
        ),
      );
      expect(responses.filter((r) => r.status === 201)).toHaveLength(5);
      for (const refused of responses.filter((r) => r.status !== 201)) expectError(refused, 402, 'webhook_limit_reached');
      expect((await request(t, 'GET', '/v1/webhooks', { key: pro.key })).body.pagination.total).toBe(5);
    });

    it('Enterprise can create more than 5', async () => {
      const enterprise = await createAccount(t, 'enterprise');
      for (let i = 0; i < 7; i++) await createWebhook(t, enterprise.key, { name: `e${i}`, url: receiver.url, events: ['tag.created'] });
      expect((await request(t, 'GET', '/v1/webhooks', { key: enterprise.key })).body.pagination.total).toBe(7);
    });

    it('the limit counts per environment: a test key has its own 5', async () => {
      const pro = await createAccount(t, 'pro');
      const testKey = (await createKey(t, pro.email, { test: true })).key;
      for (let i = 0; i < 5; i++) await createWebhook(t, pro.key, { name: `live${i}`, url: receiver.url, events: ['tag.created'] });
      expectError(
        await request(t, 'POST', '/v1/webhooks', { key: pro.key, body: { name: 'x', url: receiver.url, events: ['tag.created'] } }),
        402,
        'webhook_limit_reached',
      );
      for (let i = 0; i < 5; i++) await createWebhook(t, testKey, { name: `test${i}`, url: receiver.url, events: ['tag.created'] });
      expectError(
        await request(t, 'POST', '/v1/webhooks', { key: testKey, body: { name: 'x', url: receiver.url, events: ['tag.created'] } }),
        402,
        'webhook_limit_reached',
      );
      expect((await request(t, 'GET', '/v1/webhooks', { key: testKey })).body.data.map((w: { name: string }) => w.name)).toEqual([
        'test4',
        'test3',
        'test2',
        'test1',
        'test0',
      ]);
      expect((await request(t, 'GET', '/v1/webhooks', { key: pro.key })).body.pagination.total).toBe(5);
    });
  });

  describe('tenant isolation', () => {
    it("another account's webhook is 403 on every route; an unknown id is 404", async () => {
      const owner = await createAccount(t, 'pro');
      const intruder = await createAccount(t, 'pro');
      const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
      receiver.behaviour = 'fail';
      const delivery = (await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key })).body.data.delivery_id;
      receiver.behaviour = 'ok';
      const routes: Array<[string, string, unknown?]> = [
        ['GET', `/v1/webhooks/${hook.id}`],
        ['PUT', `/v1/webhooks/${hook.id}`, { name: 'stolen' }],
        ['DELETE', `/v1/webhooks/${hook.id}`],
        ['POST', `/v1/webhooks/${hook.id}/test`, {}],
        ['GET', `/v1/webhooks/${hook.id}/deliveries`],
        ['GET', `/v1/webhooks/${hook.id}/deliveries/${delivery}`],
        ['POST', `/v1/webhooks/${hook.id}/deliveries/${delivery}/retry`],
      ];
      const sentBefore = receiver.received.length;
      for (const [method, path, body] of routes) {
        expectError(await request(t, method, path, { key: intruder.key, body }), 403, 'forbidden');
        expectError(await request(t, method, path.replace(hook.id, UNKNOWN_ID), { key: owner.key, body }), 404, 'not_found');
      }
      expect(receiver.received.length).toBe(sentBefore);
      expect((await request(t, 'GET', '/v1/webhooks', { key: intruder.key })).body.data).toEqual([]);
      const intact = (await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: owner.key })).body.data;
      expect(intact.name).toBe('hook');
      expect(intact.stats).toMatchObject({ total_deliveries: 1, failed: 1 });
      // An unknown delivery of one's own webhook is 404 too.
      expectError(
        await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries/dlv_01jzzzzzzzzzzzzzzzzzzzzzzz`, { key: owner.key }),
        404,
        'not_found',
      );
    });

    it('a test key cannot see live webhooks (404), nor a live key test ones', async () => {
      const owner = await createAccount(t, 'pro');
      const testKey = (await createKey(t, owner.email, { test: true })).key;
      const live = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
      const sandbox = await createWebhook(t, testKey, { url: receiver.url, events: ['tag.created'] });
      expectError(await request(t, 'GET', `/v1/webhooks/${live.id}`, { key: testKey }), 404, 'not_found');
      expectError(await request(t, 'PUT', `/v1/webhooks/${live.id}`, { key: testKey, body: { enabled: false } }), 404, 'not_found');
      expectError(await request(t, 'DELETE', `/v1/webhooks/${live.id}`, { key: testKey }), 404, 'not_found');
      expectError(await request(t, 'GET', `/v1/webhooks/${sandbox.id}`, { key: owner.key }), 404, 'not_found');
      expect((await request(t, 'GET', '/v1/webhooks', { key: testKey })).body.data.map((w: { id: string }) => w.id)).toEqual([sandbox.id]);
      expect((await request(t, 'GET', '/v1/webhooks', { key: owner.key })).body.data.map((w: { id: string }) => w.id)).toEqual([live.id]);
      expect((await request(t, 'GET', `/v1/webhooks/${live.id}`, { key: owner.key })).body.data.enabled).toBe(true);
    });
  });

  describe('permissions', () => {
    it('webhooks:read reads; webhooks:write manages; each refusal names the permission', async () => {
      const owner = await createAccount(t, 'pro');
      const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
      receiver.behaviour = 'fail';
      const delivery = (await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key })).body.data.delivery_id;
      receiver.behaviour = 'ok';
      const reader = (await createKey(t, owner.email, { permissions: 'webhooks:read' })).key;
      const writer = (await createKey(t, owner.email, { permissions: 'webhooks:write' })).key;
      const neither = (
        await createKey(t, owner.email, { permissions: 'tags:read,tags:write,tags:delete,files:read,files:write,analytics:read' })
      ).key;

      const reads: Array<[string, string]> = [
        ['GET', '/v1/webhooks'],
        ['GET', `/v1/webhooks/${hook.id}`],
        ['GET', `/v1/webhooks/${hook.id}/deliveries`],
        ['GET', `/v1/webhooks/${hook.id}/deliveries/${delivery}`],
      ];
      for (const [method, path] of reads) {
        expect((await request(t, method, path, { key: reader })).status).toBe(200);
        for (const key of [writer, neither]) {
          const refused = await request(t, method, path, { key });
          expectError(refused, 403, 'forbidden');
          expect(refused.body.error.message).toContain('webhooks:read');
        }
      }

      const writes: Array<[string, string, unknown?]> = [
        ['POST', '/v1/webhooks', { name: 'new', url: receiver.url, events: ['tag.created'] }],
        ['PUT', `/v1/webhooks/${hook.id}`, { name: 'renamed' }],
        ['POST', `/v1/webhooks/${hook.id}/test`],
        ['POST', `/v1/webhooks/${hook.id}/deliveries/${delivery}/retry`],
        ['DELETE', `/v1/webhooks/${hook.id}`],
      ];
      const sentBefore = receiver.received.length;
      for (const [method, path, body] of writes) {
        for (const key of [reader, neither]) {
          const refused = await request(t, method, path, { key, body });
          expectError(refused, 403, 'forbidden');
          expect(refused.body.error.message).toContain('webhooks:write');
        }
      }
      expect(receiver.received.length).toBe(sentBefore);
      expect((await request(t, 'GET', '/v1/webhooks', { key: owner.key })).body.pagination.total).toBe(1);

      // The writer key can do each of them.
      const statuses = [];
      for (const [method, path, body] of writes) statuses.push((await request(t, method, path, { key: writer, body })).status);
      expect(statuses).toEqual([201, 200, 200, 200, 200]);
    });
  });
});

describe('webhooks: private and loopback receivers are refused unless ALLOW_PRIVATE_NETWORKS', () => {
  const t = useApp();
  const owner = useAccount(t, 'pro');

  it.each([
    'https://127.0.0.1:8443/hooks',
    'https://localhost/hooks',
    'https://10.1.2.3/hooks',
    'https://192.168.0.10/hooks',
    'https://172.16.5.4/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hooks',
    'https://[fd00::1]/hooks',
    'https://0.0.0.0/hooks',
    // IPv4-compatible IPv6 (::/96, deprecated): ::127.0.0.1 is 127.0.0.1.
    'https://[::127.0.0.1]/hooks',
  ])('%s → 400 invalid_url', async (url) => {
    const response = await request(t, 'POST', '/v1/webhooks', { key: owner.key, body: { name: 'n', url, events: ['tag.created'] } });
    expectError(response, 400, 'invalid_url', 'url');
  });

  it('a public address is accepted, and cannot be changed to a private one', async () => {
    const hook = await createWebhook(t, owner.key, { url: 'https://93.184.215.14/hooks', events: ['tag.created'] });
    expect(hook.url).toBe('https://93.184.215.14/hooks');
    expectError(
      await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: owner.key, body: { url: 'https://127.0.0.1/hooks' } }),
      400,
      'invalid_url',
      'url',
    );
    expect((await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: owner.key })).body.data.url).toBe('https://93.184.215.14/hooks');
  });
});
