import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createWebhook, deliveryEnv } from '../webhooks/support.js';

/**
 * Input that is not even the right shape: malformed ids, NUL characters, undecodable paths and
 * broken HTTP. Each is a client error in the envelope, on SQLite and on PostgreSQL alike
 * (PostgreSQL refuses NUL in text, so a NUL reaching a query there was a 500).
 */
describe('malformed input', () => {
  const t = useApp(async () => ({ env: await deliveryEnv() }));
  const owner = useAccount(t, 'enterprise');
  let folderId: string;
  let webhookId: string;

  beforeAll(async () => {
    folderId = (await request(t, 'POST', '/v1/folders', { key: owner.key, body: { name: 'f' } })).body.data.id;
    webhookId = (await createWebhook(t, owner.key, { url: 'https://127.0.0.1:9/hook', events: ['tag.created'] })).id;
  });

  it('answers a malformed path id as it answers an unknown one: 404 not_found', async () => {
    const unknown = await request(t, 'GET', '/v1/folders/fld_00000000000000000000000000', { key: owner.key });
    expectError(unknown, 404, 'not_found');
    for (const path of [
      '/v1/folders/%00',
      '/v1/folders/fld_x',
      `/v1/folders/${folderId}%00`,
      '/v1/webhooks/wh_%00',
      `/v1/webhooks/${webhookId}/deliveries/%00`,
      `/v1/webhooks/${webhookId}/deliveries/%00/retry`,
      '/v1/tags/%00',
      '/v1/tags/abc',
      '/v1/files/%00',
    ]) {
      const method = path.endsWith('/retry') ? 'POST' : 'GET';
      const response = await request(t, method, path, { key: owner.key });
      expectError(response, 404, 'not_found');
      if (path.startsWith('/v1/folders')) expect(response.body.error.message, path).toBe(unknown.body.error.message);
    }
  });

  it('refuses a malformed id in a query or body field with 400 naming the field', async () => {
    expectError(await request(t, 'GET', '/v1/tags?folder=%00', { key: owner.key }), 400, 'validation_error', 'folder');
    expectError(await request(t, 'GET', '/v1/folders?parent_id=%00', { key: owner.key }), 400, 'validation_error', 'parent_id');
    expectError(await request(t, 'GET', '/v1/folders?parent_id=', { key: owner.key }), 400, 'validation_error', 'parent_id');
    expectError(
      await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 't', folder_id: 'fld_\u0000' } }),
      400,
      'validation_error',
      'folder_id',
    );
    expectError(
      await request(t, 'POST', '/v1/tags/batch', { key: owner.key, body: { tags: [{ title: 't', folder_id: '' }] } }),
      400,
      'validation_error',
      'tags[0].folder_id',
    );
    for (const parent of ['', '\u0000', 'fld_short']) {
      expectError(
        await request(t, 'POST', '/v1/folders', { key: owner.key, body: { name: 'child', parent_id: parent } }),
        400,
        'validation_error',
        'parent_id',
      );
      expectError(
        await request(t, 'PATCH', `/v1/folders/${folderId}`, { key: owner.key, body: { parent_id: parent } }),
        400,
        'validation_error',
        'parent_id',
      );
    }
    // Well-formed ids still work, and null still means the top level.
    const child = await request(t, 'POST', '/v1/folders', { key: owner.key, body: { name: 'child', parent_id: folderId } });
    expect(child.status).toBe(201);
    const moved = await request(t, 'PATCH', `/v1/folders/${child.body.data.id}`, { key: owner.key, body: { parent_id: null } });
    expect(moved.body.data.parent_id).toBeNull();
  });

  it('names an unknown body field, even when a required one is missing because of it', async () => {
    const typo = (response: Awaited<ReturnType<typeof request>>, field: string) => {
      expectError(response, 400, 'validation_error', field);
      expect(response.body.error.message).toBe(`unknown field '${field}'`);
    };
    // `titel` for `title`: the required title is missing too, but the typo is the mistake.
    typo(await request(t, 'POST', '/v1/tags', { key: owner.key, body: { titel: 'Lobby' } }), 'titel');
    typo(await request(t, 'POST', '/v1/tags/batch', { key: owner.key, body: { tags: [{ titel: 'Lobby' }] } }), 'tags[0].titel');
    typo(
      await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'Lobby', permissions: { raed: 'public' } } }),
      'permissions.raed',
    );
    typo(await request(t, 'POST', '/v1/folders', { key: owner.key, body: { nmae: 'Floors' } }), 'nmae');
    typo(await request(t, 'PATCH', `/v1/folders/${folderId}`, { key: owner.key, body: { nmae: 'Floors' } }), 'nmae');
    const tag = (await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'Lobby' } })).body.data;
    typo(await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: owner.key, body: { titel: 'Hall' } }), 'titel');
    // With nothing unknown, the missing field is still what is reported.
    const missing = await request(t, 'POST', '/v1/tags', { key: owner.key, body: { content: 'x' } });
    expectError(missing, 400, 'validation_error', 'title');
    expect(missing.body.error.message).toBe('title is required');
  });

  it('refuses NUL in text fields with 400 naming the field', async () => {
    const hook = { name: 'h', url: 'https://127.0.0.1:9/hook', events: ['tag.created'] };
    expectError(
      await request(t, 'POST', '/v1/webhooks', { key: owner.key, body: { ...hook, secret: 'abc\u0000def' } }),
      400,
      'validation_error',
      'secret',
    );
    expectError(
      await request(t, 'PUT', `/v1/webhooks/${webhookId}`, { key: owner.key, body: { secret: '\u0000' } }),
      400,
      'validation_error',
      'secret',
    );
    expectError(
      await request(t, 'POST', '/v1/webhooks', { key: owner.key, body: { ...hook, headers: { 'x-a': 'b\u0000' } } }),
      400,
      'validation_error',
      'headers.x-a',
    );
    expectError(
      await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 't', content: [{ type: 'text', content: 'a\u0000' }] } }),
      400,
      'validation_error',
      'content[0].content',
    );
    expectError(await request(t, 'POST', '/v1/folders', { key: owner.key, body: { name: 'a\u0000b' } }), 400, 'validation_error', 'name');
  });

  it('answers an undecodable or over-long path in the envelope, without echoing it', async () => {
    for (const path of [
      '/v1/tags/%ff',
      '/v1/folders/%e0%a4%a',
      `/v1/tags/${'a'.repeat(101)}`,
      `/v1/webhooks/wh_1/deliveries/${'d'.repeat(500)}`,
    ]) {
      const response = await request(t, 'GET', path, { key: owner.key });
      expectError(response, 404, 'not_found');
      expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
      expect(response.text, path).not.toContain(path.split('/').pop()!.slice(0, 20));
    }
  });

  it('answers malformed HTTP with a minimal envelope and a request id', async () => {
    for (const garbage of [
      'GARBAGE\r\n\r\n',
      'GET /v1/tags HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /v1/<script> HTTP/9.9\r\n\r\n',
    ]) {
      const raw = await new Promise<string>((resolve, reject) => {
        const url = new URL(t.baseUrl);
        const socket = net.connect(Number(url.port), url.hostname, () => socket.end(garbage));
        let data = '';
        socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head, garbage).toMatch(/^HTTP\/1\.1 400 /);
      const requestId = /\r\nx-request-id: (req_[0-9a-z]{26})/i.exec(head!)?.[1];
      expect(requestId, head).toBeDefined();
      const envelope = JSON.parse(body!);
      expect(envelope).toEqual({
        success: false,
        error: { code: 'invalid_request', message: expect.any(String), request_id: requestId },
      });
      expect(body).not.toContain('script');
      expect(body).not.toContain('Bad Header');
    }
  });
});
