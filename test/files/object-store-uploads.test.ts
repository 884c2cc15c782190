import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GetObjectCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PLAN_LIMITS } from '../../src/features/accounts/index.js';
import { reserveStorage, storageUsed } from '../../src/features/files/files.repository.js';
import { PART_BYTES } from '../../src/lib/s3-part-upload.js';
import { createAccount, expectError, request, type Account } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { testS3Client } from '../helpers/s3.js';
import { csrfOf, get, signInHttp } from '../dashboard/support.js';
import { createTag, filesUnder, multipart, sha256, startUpload, streamUpload, upload } from './helpers.js';
import { image } from './samples.js';

const MB = 1024 * 1024;

/** Text of `bytes` bytes that no two tests share, in whole lines. */
function text(bytes: number): Buffer {
  return Buffer.from(
    randomBytes(Math.ceil((bytes * 3) / 4))
      .toString('base64')
      .replace(/(.{76})/g, '$1\n'),
  ).subarray(0, bytes);
}

/**
 * Every door's upload streams into the object store while it arrives (docs/files.md "Object
 * storage"): what is accepted is in the bucket with the bytes and SHA-256 of its row, and what
 * is refused at any point (type check, per-file limit mid-body, a client gone mid-body, the
 * storage limit at the reservation) leaves no object behind.
 *
 * s3rver neither lists nor aborts multipart uploads (501, 405), so a refused upload's unfinished
 * multipart upload stays in it: that is the leftovers sweep's abort path (object-store.test.ts),
 * as the product never depends on the abort working. What is checked here is the bucket's
 * objects, completed uploads included.
 */
describe('uploads streamed into the object store', () => {
  const t = useApp({ blobStore: 's3', env: { ALLOW_PRIVATE_NETWORKS: 'true' } });
  const alice = useAccount(t, 'pro');
  const s3: S3Client = testS3Client();
  let tag: { id: string };
  let origin: http.Server;
  let originBase = '';
  /** What the origin serves at /file.txt. */
  let originBody: Buffer = Buffer.alloc(0);

  beforeAll(async () => {
    tag = await createTag(t, alice.key);
    origin = http.createServer((req, res) => {
      if (req.url !== '/file.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(originBody);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    originBase = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    origin.closeAllConnections();
    origin.close();
    s3.destroy();
  });

  const tmpFiles = () => filesUnder(join(t.config.dataDir, 'files', 'tmp'));

  /** Every object in the app's bucket, whatever its prefix. */
  async function bucketObjects(): Promise<string[]> {
    const names: string[] = [];
    for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: t.config.s3!.bucket })) {
      names.push(...(page.Contents ?? []).map((object) => object.Key!));
    }
    return names.sort();
  }

  /** The file's object holds `content`, and its row's size and SHA-256 are the object's. */
  async function expectStored(id: string, content: Buffer): Promise<void> {
    const answer = await s3.send(new GetObjectCommand({ Bucket: t.config.s3!.bucket, Key: `blobs/${id}` }));
    const stored = Buffer.from(await answer.Body!.transformToByteArray());
    expect(stored.length).toBe(content.length);
    expect(sha256(stored)).toBe(sha256(content));
    const row = await t.database.db.selectFrom('files').select(['size', 'sha256']).where('id', '=', id).executeTakeFirstOrThrow();
    // PostgreSQL returns the bigint size as a string.
    expect({ size: Number(row.size), sha256: row.sha256 }).toEqual({ size: content.length, sha256: sha256(content) });
    expect(tmpFiles()).toEqual([]);
  }

  it('stores an API upload of several parts with its bytes and SHA-256', async () => {
    const content = text(2 * PART_BYTES + 12_345);
    const response = await upload(t, alice.key, tag.id, 'parts.txt', content);
    expect(response.status, response.text).toBe(201);
    await expectStored(response.body.data.id, content);
  });

  it('stores a dashboard upload with its bytes and SHA-256', async () => {
    const jar = await signInHttp(t, alice.email);
    const path = `/dashboard/tags/${tag.id}/files`;
    const token = csrfOf(await get(t, path, jar));
    const content = text(PART_BYTES + 777);
    const { body, contentType } = multipart([{ name: 'file', filename: 'dashboard.txt', content, contentType: 'text/plain' }]);
    const response = await request(t, 'POST', path, {
      rawBody: body,
      headers: { 'content-type': contentType, cookie: jar.header(), origin: t.baseUrl, 'x-csrf-token': token, accept: 'application/json' },
    });
    expect(response.status, response.text.slice(0, 300)).toBe(201);
    await expectStored(response.body.file.id, content);
  });

  it('stores a from-URL upload with its bytes and SHA-256', async () => {
    originBody = text(PART_BYTES + 4321);
    const response = await request(t, 'POST', `/v1/tags/${tag.id}/files/from-url`, {
      key: alice.key,
      body: { url: `${originBase}/file.txt` },
    });
    expect(response.status, response.text).toBe(201);
    await expectStored(response.body.data.id, originBody);
  });

  describe('refused uploads leave no object', () => {
    let before: string[] = [];
    beforeAll(async () => {
      before = await bucketObjects();
    });
    /** Nothing was added to the bucket; the refused upload's removal may finish just after its answer. */
    const expectNothingLeft = async () => {
      await vi.waitFor(() => expect(tmpFiles()).toEqual([]));
      await vi.waitFor(async () => expect(await bucketObjects()).toEqual(before));
    };

    it('by the type check, once the whole file has arrived', async () => {
      // Larger than a part: its parts were sent before the check ran.
      const notPng = Buffer.concat([Buffer.from('not a png'), text(PART_BYTES + 10)]);
      expectError(await upload(t, alice.key, tag.id, 'lying.png', notPng), 415, 'unsupported_file_type');
      // Smaller than a part: kept for one PUT at the commit.
      expectError(await upload(t, alice.key, tag.id, 'small.png', Buffer.from('not a png either')), 415, 'unsupported_file_type');
      // A real image with an executable's name is refused by its name, before a byte is read.
      expectError(await upload(t, alice.key, tag.id, 'tool.exe', await image('png', 4, 4)), 415, 'unsupported_file_type');
      await expectNothingLeft();
    });

    it('by the per-file limit, in the middle of the body', async () => {
      const result = await streamUpload(t, alice.key, tag.id, 'huge.txt', Buffer.alloc(MB, 'h'), 3 * PLAN_LIMITS.pro.maxFileBytes);
      expect(result.status).toBe(400);
      expect(result.body?.error?.code).toBe('file_too_large');
      expect(result.closedByServer).toBe(true);
      await expectNothingLeft();
    });

    it('by a client that disconnects in the middle of the body', async () => {
      // More than a part, so the store has a multipart upload with a part under way.
      const req = startUpload(t, alice.key, tag.id, 'half.txt', text(PART_BYTES + MB));
      // Past the first part in the temp file is past it in the store's upload (they are fed together).
      await vi.waitFor(() => expect(statSync(tmpFiles()[0]!).size).toBeGreaterThan(PART_BYTES));
      req.destroy();
      await expectNothingLeft();
      const rows = await t.database.db.selectFrom('files').select('id').where('name', '=', 'half.txt').execute();
      expect(rows).toEqual([]);
    });

    it('by the storage limit, in the middle of the body and at the reservation', async () => {
      const limit = PLAN_LIMITS.pro.storageBytes;
      const full = async (): Promise<{ account: Account; tagId: string }> => {
        const account = await createAccount(t, 'pro');
        const own = await createTag(t, account.key);
        return { account, tagId: own.id };
      };
      // Mid-body: less room than the file, found out while it streams.
      const small = await full();
      expect(await reserveStorage(t.database.db, small.account.userId, 'live', limit - MB, limit, new Date().toISOString())).toBe(true);
      expectError(await upload(t, small.account.key, small.tagId, 'over.txt', text(PART_BYTES + MB)), 507, 'storage_limit_exceeded');
      // At the reservation: two uploads that each fit alone, but not together; both objects are
      // complete before the reservation, and the one refused at its commit is removed.
      const two = await full();
      const size = PART_BYTES + 100_000;
      expect(await reserveStorage(t.database.db, two.account.userId, 'live', limit - size - 1000, limit, new Date().toISOString())).toBe(
        true,
      );
      const results = await Promise.all([
        upload(t, two.account.key, two.tagId, 'one.txt', text(size)),
        upload(t, two.account.key, two.tagId, 'two.txt', text(size)),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 507]);
      expect(await storageUsed(t.database.db, two.account.userId, 'live')).toBe(limit - 1000);
      const kept = results.find((r) => r.status === 201)!.body.data.id as string;
      before.push(`blobs/${kept}`);
      before.sort();
      await expectNothingLeft();
    });
  });
});
