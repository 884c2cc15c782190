import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PLAN_LIMITS } from '../../src/features/accounts/plans.js';
import { reserveStorage, storageUsed } from '../../src/features/files/files.repository.js';
import { createAccount, expectError, request, startTestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, filesUnder, startUpload, storedKeys, streamUpload, upload } from './helpers.js';

const MB = 1024 * 1024;

describe('file limits', () => {
  const t = useApp();
  const pro = useAccount(t, 'pro');
  let tag: { id: string };
  const tmpDir = () => join(t.config.dataDir, 'files', 'tmp');
  const fileRows = async () => (await t.database.db.selectFrom('files').select('id').execute()).length;

  beforeAll(async () => {
    tag = await createTag(t, pro.key);
  });

  it('answers 400 file_too_large as soon as the plan maximum is crossed, and stops reading', async () => {
    const chunk = Buffer.alloc(MB, 'a');
    const result = await streamUpload(t, pro.key, tag.id, 'big.txt', chunk, 400 * MB);
    expect(result.status).toBe(400);
    expect(result.body?.error?.code).toBe('file_too_large');
    // The answer came once a little over 100 MB had been sent (plus what socket buffers and a
    // busy machine let through), long before the 400 MB body ended, and the server hung up.
    expect(result.sentBeforeResponse).toBeGreaterThan(PLAN_LIMITS.pro.maxFileBytes - 8 * MB);
    expect(result.sentBeforeResponse).toBeLessThan(2 * PLAN_LIMITS.pro.maxFileBytes);
    expect(result.closedByServer).toBe(true);
    await vi.waitFor(() => expect(filesUnder(tmpDir())).toEqual([]));
    expect(await fileRows()).toBe(0);
  });

  it('refuses at once when Content-Length already says the file is too large', async () => {
    // Only the head of the body is ever written and the request never ends: an answer at all
    // shows the server decided from Content-Length alone.
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${t.baseUrl}/v1/tags/${tag.id}/files`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${pro.key}`,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(300 * MB),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n');
    });
    expect(status).toBe(400);
    expect(JSON.parse(body).error.code).toBe('file_too_large');
  });

  it('refuses with 507 when the account storage would be exceeded', async () => {
    const account = await createAccount(t, 'pro');
    const own = await createTag(t, account.key);
    const limit = PLAN_LIMITS.pro.storageBytes;
    const now = new Date().toISOString();
    expect(await reserveStorage(t.database.db, account.userId, 'live', limit - 1000, limit, now)).toBe(true);
    expectError(await upload(t, account.key, own.id, 'a.txt', Buffer.alloc(1001, 'x')), 507, 'storage_limit_exceeded');
    expect((await upload(t, account.key, own.id, 'b.txt', Buffer.alloc(1000, 'x'))).status).toBe(201);
    expect(await storageUsed(t.database.db, account.userId, 'live')).toBe(limit);
    // Full: refused before the body is read.
    expectError(await upload(t, account.key, own.id, 'c.txt', Buffer.from('x')), 507, 'storage_limit_exceeded');
    // The test environment has its own storage.
    const testKey = await import('../helpers/app.js').then(({ createKey }) => createKey(t, account.email, { test: true }));
    const testTag = await createTag(t, testKey.key);
    expect((await upload(t, testKey.key, testTag.id, 'c.txt', Buffer.from('x'))).status).toBe(201);
    // Deleting a file gives its bytes back.
    const files = await request(t, 'GET', `/v1/tags/${own.id}/files`, { key: account.key });
    await request(t, 'DELETE', `/v1/files/${files.body.data[0].id}`, { key: account.key });
    expect(await storageUsed(t.database.db, account.userId, 'live')).toBe(limit - 1000);
    // A refused upload's temp file goes once its stream closes, which may be just after the answer.
    await vi.waitFor(() => expect(filesUnder(tmpDir())).toEqual([]));
  });

  it('leaves no temp file behind when uploads are refused at their first bytes, however often', async () => {
    // Refused at the first chunk, the temp file's write stream may still be opening the file:
    // a removal before it has opened would leave the file behind for ever. Over HTTP that race
    // is rare; temp-files.test.ts makes it at the storage layer, where it is frequent.
    const account = await createAccount(t, 'pro');
    const own = await createTag(t, account.key);
    const limit = PLAN_LIMITS.pro.storageBytes;
    expect(await reserveStorage(t.database.db, account.userId, 'live', limit - 1000, limit, new Date().toISOString())).toBe(true);
    for (let i = 0; i < 60; i++)
      expectError(await upload(t, account.key, own.id, `r${i}.txt`, Buffer.alloc(1001, 'x')), 507, 'storage_limit_exceeded');
    await vi.waitFor(() => expect(filesUnder(tmpDir())).toEqual([]));
  });

  it('lets only one of two concurrent uploads take the last free bytes', async () => {
    const limit = PLAN_LIMITS.pro.storageBytes;
    for (let round = 0; round < 3; round++) {
      const account = await createAccount(t, 'pro');
      const own = await createTag(t, account.key);
      await reserveStorage(t.database.db, account.userId, 'live', limit - 150_000, limit, new Date().toISOString());
      const results = await Promise.all([
        upload(t, account.key, own.id, 'one.txt', Buffer.alloc(100_000, 'a')),
        upload(t, account.key, own.id, 'two.txt', Buffer.alloc(100_000, 'b')),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 507]);
      expect(await storageUsed(t.database.db, account.userId, 'live')).toBe(limit - 50_000);
      const listed = await request(t, 'GET', `/v1/tags/${own.id}/files`, { key: account.key });
      expect(listed.body.pagination.total).toBe(1);
    }
    // The refused upload left no blob behind.
    const rows = await t.database.db.selectFrom('files').select('id').execute();
    expect((await storedKeys(t)).length).toBe(rows.length);
    await vi.waitFor(() => expect(filesUnder(tmpDir())).toEqual([]));
  });

  it('leaves no row and no file behind when the client aborts an upload', async () => {
    const account = await createAccount(t, 'pro');
    const own = await createTag(t, account.key);
    const blobsBefore = (await storedKeys(t)).length;
    const req = startUpload(t, account.key, own.id, 'half.txt', Buffer.alloc(2 * MB, 'z'));
    // The upload is in progress once its temp file exists; then the client goes away.
    await vi.waitFor(() => expect(filesUnder(tmpDir()).length).toBe(1));
    req.destroy();
    await vi.waitFor(() => expect(filesUnder(tmpDir())).toEqual([]));
    expect((await storedKeys(t)).length).toBe(blobsBefore);
    const listed = await request(t, 'GET', `/v1/tags/${own.id}/files`, { key: account.key });
    expect(listed.body.data).toEqual([]);
    expect(await storageUsed(t.database.db, account.userId, 'live')).toBe(0);
  });

  it('streams a large upload on Enterprise (above the Pro maximum) with flat memory', async () => {
    const enterprise = await createAccount(t, 'enterprise');
    const own = await createTag(t, enterprise.key);
    const size = 150 * MB;
    const line = Buffer.from(`${randomBytes(40).toString('hex')},1234567890\n`);
    const chunk = Buffer.concat(Array.from({ length: Math.ceil(MB / line.length) }, () => line)).subarray(0, MB);
    const expected = createHash('sha256');
    for (let sent = 0; sent < size; sent += MB) expected.update(chunk);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const result = await streamUpload(t, enterprise.key, own.id, 'big.csv', chunk, size).finally(() => clearInterval(sampler));
    expect(result.status).toBe(201);
    expect(peak - baseline).toBeLessThan(100 * MB);
    const listed = await request(t, 'GET', `/v1/tags/${own.id}/files`, { key: enterprise.key });
    const file = listed.body.data[0];
    expect(file).toMatchObject({ size, mime_type: 'text/csv' });
    const actual = createHash('sha256');
    let received = 0;
    await new Promise<void>((resolve, reject) => {
      http.get(`${t.baseUrl}/v1/files/${file.id}/download`, { headers: { authorization: `Bearer ${enterprise.key}` } }, (res) => {
        res.on('data', (data: Buffer) => {
          received += data.length;
          actual.update(data);
        });
        res.on('end', resolve);
        res.on('error', reject);
      });
    });
    expect(received).toBe(size);
    expect(actual.digest('hex')).toBe(expected.digest('hex'));
  });

  it('counts uploads and from-url in the upload bucket: 10 a minute per key', async () => {
    const limited = await startTestApp({ env: { RATE_LIMITS: 'true' } });
    try {
      const account = await createAccount(limited, 'pro');
      const own = await createTag(limited, account.key);
      for (let i = 0; i < 9; i++) expect((await upload(limited, account.key, own.id, `n${i}.txt`, Buffer.from('x'))).status).toBe(201);
      const tenth = await request(limited, 'POST', `/v1/tags/${own.id}/files/from-url`, {
        key: account.key,
        body: { url: 'http://127.0.0.1:1/a.txt' },
      });
      expectError(tenth, 400, 'invalid_url');
      const eleventh = await upload(limited, account.key, own.id, 'late.txt', Buffer.from('x'));
      expectError(eleventh, 429, 'rate_limit_exceeded');
      expect(eleventh.headers.get('retry-after')).toMatch(/^\d+$/);
      // Other endpoints of the key are not in that bucket.
      expect((await request(limited, 'GET', `/v1/tags/${own.id}/files`, { key: account.key })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
