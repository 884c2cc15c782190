import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { PLAN_LIMITS } from '../../src/features/accounts/plans.js';
import { releaseStorage, reserveStorage } from '../../src/features/files/files.repository.js';
import { idempotencyPurgeJob } from '../../src/jobs/idempotency-purge.js';
import { createServices } from '../../src/services.js';
import { createAccount, createKey, expectError, request, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, multipart, streamUpload } from '../files/helpers.js';

const HOUR = 60 * 60 * 1000;

/** A file upload under an Idempotency-Key; each call frames the body with a new boundary. */
function uploadWithKey(t: TestApp, key: string, tagId: string, idempotencyKey: string, content = 'some notes') {
  const { body, contentType } = multipart([{ name: 'file', filename: 'notes.txt', content: Buffer.from(content) }]);
  return request(t, 'POST', `/v1/tags/${tagId}/files`, {
    key,
    rawBody: body,
    headers: { 'content-type': contentType, 'idempotency-key': idempotencyKey },
  });
}

/** An origin for files/from-url that holds each request until the test opens the gate. */
async function startGatedOrigin() {
  let arrived: () => void = () => {};
  let open: () => void = () => {};
  const state = {
    arrived: new Promise<void>((resolve) => (arrived = resolve)),
    gate: new Promise<void>((resolve) => (open = resolve)),
  };
  const server = http.createServer((_req, res) => {
    arrived();
    void state.gate.then(() => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('held until released\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/held.txt`,
    arrived: () => state.arrived,
    release: () => open(),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('Idempotency-Key on POST', () => {
  const t = useApp({ env: { ALLOW_PRIVATE_NETWORKS: 'true' } });
  const alice = useAccount(t);
  let n = 0;
  const newKey = () => `key-${Date.now()}-${++n}`;
  const post = (path: string, body: unknown, idempotencyKey: string | undefined, key = alice.key) =>
    request(t, 'POST', path, { key, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });
  const keyRows = async (key: string) =>
    (await t.database.db.selectFrom('idempotency_keys').select('idempotency_key').where('idempotency_key', '=', key).execute()).length;
  const tagCount = async (key = alice.key) => (await request(t, 'GET', '/v1/tags', { key })).body.pagination.total as number;

  it('replays the first response to a retry with the same key and body, and runs nothing again', async () => {
    const before = await tagCount();
    const key = newKey();
    const first = await post('/v1/tags', { title: 'Once', content: [{ type: 'text', content: 'hi' }] }, key);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // The same parameters in another order and spacing are the same request.
    const retry = await request(t, 'POST', '/v1/tags', {
      key: alice.key,
      rawBody: '{ "content": [{"content": "hi", "type": "text"}],  "title": "Once" }',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('original-request-id')).toBe(first.headers.get('x-request-id'));
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(retry.text).toBe(first.text);
    expect(await tagCount()).toBe(before + 1);
  });

  it('refuses the same key with another body or another path (422 idempotency_key_reused)', async () => {
    const key = newKey();
    expect((await post('/v1/tags', { title: 'First' }, key)).status).toBe(201);
    expectError(await post('/v1/tags', { title: 'Second' }, key), 422, 'idempotency_key_reused', 'Idempotency-Key');
    expectError(await post('/v1/folders', { name: 'First' }, key), 422, 'idempotency_key_reused', 'Idempotency-Key');
    // The first request still replays.
    expect((await post('/v1/tags', { title: 'First' }, key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('scopes keys per API key: another key runs the same request anew', async () => {
    const key = newKey();
    const other = await createKey(t, alice.email, { name: 'second' });
    const first = await post('/v1/tags', { title: 'Scoped' }, key);
    const second = await post('/v1/tags', { title: 'Scoped' }, key, other.key);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.data.id).not.toBe(first.body.data.id);
  });

  it('validates the header: 1 to 255 printable ASCII characters', async () => {
    const before = await tagCount();
    for (const bad of ['', 'x'.repeat(256), 'tab\tinside']) {
      expectError(await post('/v1/tags', { title: 'Bad key' }, bad), 400, 'validation_error', 'Idempotency-Key');
    }
    expect((await post('/v1/tags', { title: 'Long key' }, 'k'.repeat(255))).status).toBe(201);
    expect(await tagCount()).toBe(before + 1);
  });

  it('keeps 4xx answers of the operation, but not requests refused by the schema', async () => {
    // The operation ran and refused: replayed, like Stripe.
    const refusedKey = newKey();
    const missingFolder = { title: 'Lost', folder_id: 'fld_00000000000000000000000000' };
    const refused = await post('/v1/tags', missingFolder, refusedKey);
    expectError(refused, 400, 'validation_error', 'folder_id');
    const again = await post('/v1/tags', missingFolder, refusedKey);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(refused.text);

    // A body the schema refuses never reached the operation: the key stays free.
    const key = newKey();
    expectError(await post('/v1/tags', { title: 42 }, key), 400, 'validation_error', 'title');
    const fixed = await post('/v1/tags', { title: 'Fixed' }, key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not keep a 5xx: the key is released and a retry runs', async () => {
    const bob = await createAccount(t);
    const tag = await createTag(t, bob.key);
    const limit = PLAN_LIMITS.pro.storageBytes;
    const at = new Date().toISOString();
    expect(await reserveStorage(t.database.db, bob.userId, 'live', limit, limit, at)).toBe(true);
    const key = newKey();
    expectError(await uploadWithKey(t, bob.key, tag.id, key), 507, 'storage_limit_exceeded');
    await releaseStorage(t.database.db, bob.userId, 'live', limit, at);
    const retry = await uploadWithKey(t, bob.key, tag.id, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays a file upload instead of storing the file twice', async () => {
    const tag = await createTag(t, alice.key);
    const key = newKey();
    const send = () => uploadWithKey(t, alice.key, tag.id, key);
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const retry = await send();
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(first.body.data.id);
    const files = await request(t, 'GET', `/v1/tags/${tag.id}/files`, { key: alice.key });
    expect(files.body.pagination.total).toBe(1);

    // A large retry is answered at once, and the rest of its body is not read.
    const MB = 1024 * 1024;
    const large = await streamUpload(t, alice.key, tag.id, 'notes.txt', Buffer.alloc(MB, 'a'), 64 * MB, { 'idempotency-key': key });
    expect(large.status).toBe(201);
    expect(large.body).toEqual(first.body);
    expect(large.closedByServer).toBe(true);
    expect(large.sentBeforeResponse).toBeLessThan(32 * MB);
  });

  it('keeps no answer to an upload that did not arrive whole: cut off, or refused before its end', async () => {
    const tag = await createTag(t, alice.key);
    const key = newKey();
    const { body, contentType } = multipart([{ name: 'file', filename: 'notes.txt', content: Buffer.alloc(256 * 1024, 'n') }]);
    const cut = http.request(`${t.baseUrl}/v1/tags/${tag.id}/files`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice.key}`,
        'content-type': contentType,
        'content-length': String(body.length),
        'idempotency-key': key,
      },
    });
    cut.on('error', () => undefined);
    cut.write(body.subarray(0, body.length / 2));
    await vi.waitFor(async () => expect(await keyRows(key)).toBe(1));
    cut.destroy();
    await vi.waitFor(async () => expect(await keyRows(key)).toBe(0));
    const retry = await uploadWithKey(t, alice.key, tag.id, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();

    // Refused on its Content-Length alone (400 file_too_large) while the file still arrives.
    const refusedKey = newKey();
    const refused = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${t.baseUrl}/v1/tags/${tag.id}/files`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${alice.key}`,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(300 * 1024 * 1024),
          'idempotency-key': refusedKey,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (data: Buffer) => (text += data.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\n');
    });
    expect(refused.status, refused.text).toBe(400);
    expect(JSON.parse(refused.text).error.code).toBe('file_too_large');
    expect(await keyRows(refusedKey)).toBe(0);
    const smaller = await uploadWithKey(t, alice.key, tag.id, refusedKey);
    expect(smaller.status, smaller.text).toBe(201);
  });

  it('answers 409 idempotency_key_in_use while the first request is still running', async () => {
    const origin = await startGatedOrigin();
    try {
      const tag = await createTag(t, alice.key);
      const key = newKey();
      const path = `/v1/tags/${tag.id}/files/from-url`;
      const first = post(path, { url: origin.url }, key);
      await origin.arrived();
      expectError(await post(path, { url: origin.url }, key), 409, 'idempotency_key_in_use');
      // Another request under the key in flight is refused as another request.
      expectError(await post(path, { url: `${origin.url}?other` }, key), 422, 'idempotency_key_reused');
      origin.release();
      const done = await first;
      expect(done.status, done.text).toBe(201);
      const replay = await post(path, { url: origin.url }, key);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.data.id).toBe(done.body.data.id);
    } finally {
      origin.close();
    }
  });

  it('holds across instances and restarts: another server on the same database replays', async () => {
    const key = newKey();
    const first = await post('/v1/tags', { title: 'Durable' }, key);
    expect(first.status).toBe(201);
    const services = await createServices(t.config, { clock: t.clock });
    const app = await buildApp(services);
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const retry = await request(t, 'POST', '/v1/tags', {
        baseUrl,
        key: alice.key,
        body: { title: 'Durable' },
        headers: { 'idempotency-key': key },
      });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
    } finally {
      await app.close();
      await services.close();
    }
  });

  it('forgets a key after 24 hours, and the purge job deletes the old records', async () => {
    const carol = await createAccount(t);
    const key = newKey();
    expect((await post('/v1/tags', { title: 'Day one' }, key, carol.key)).status).toBe(201);
    t.clock.advance(24 * HOUR + 1000);
    const later = await post('/v1/tags', { title: 'Day two' }, key, carol.key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    const fresh = newKey();
    expect((await post('/v1/tags', { title: 'Fresh' }, fresh, carol.key)).status).toBe(201);

    t.clock.advance(24 * HOUR - HOUR);
    await idempotencyPurgeJob.run(t.services);
    const left = await t.database.db.selectFrom('idempotency_keys').select(['idempotency_key', 'created_at']).execute();
    const horizon = new Date(t.clock.now().getTime() - 24 * HOUR).toISOString();
    expect(left.every((row) => row.created_at >= horizon)).toBe(true);
    expect(left.map((row) => row.idempotency_key)).toEqual(expect.arrayContaining([key, fresh]));
    expect(left.length).toBe(2);
  });

  it('leaves requests without the header, and other methods, as they were', async () => {
    const before = await tagCount();
    expect((await post('/v1/tags', { title: 'No key' }, undefined)).status).toBe(201);
    expect((await post('/v1/tags', { title: 'No key' }, undefined)).status).toBe(201);
    expect(await tagCount()).toBe(before + 2);
    const me = await request(t, 'GET', '/v1/me', { key: alice.key, headers: { 'idempotency-key': '' } });
    expect(me.status).toBe(200);
  });
});
