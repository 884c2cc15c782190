import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteBucketCommand, GetObjectCommand, CreateMultipartUploadCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { sweepCrashLeftovers, UNFINISHED_UPLOAD_GRACE_MS } from '../../src/features/files/index.js';
import { createServices } from '../../src/services.js';
import { expectError, request, runCli, startTestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { freshBucket, s3Env, testS3Client } from '../helpers/s3.js';
import { createTag, derivedOf, sha256, storedKeys, upload } from './helpers.js';
import { image } from './samples.js';

const MB = 1024 * 1024;

/**
 * Files in an S3-compatible object store (BLOB_STORE=s3), on the run's s3rver: where they go in
 * the bucket, multipart uploads, ranges across parts, the sweep of unfinished uploads, /readyz
 * and the start-up check. The behaviour of every file endpoint on the store is the rest of
 * test/files with TEST_BLOB_STORE=s3.
 */
describe('files in an object store', () => {
  const lines: Record<string, unknown>[] = [];
  const t = useApp({ blobStore: 's3', log: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) });
  const alice = useAccount(t, 'enterprise');
  const s3: S3Client = testS3Client();
  afterAll(() => s3.destroy());

  const objectBytes = async (name: string) => {
    const answer = await s3.send(new GetObjectCommand({ Bucket: t.config.s3!.bucket, Key: name }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  };

  it('keeps a file as blobs/{id} and its renders under cache/{id}/, and removes both after the delete', async () => {
    const tag = await createTag(t, alice.key);
    const png = await image('png', 300, 200);
    const file = (await upload(t, alice.key, tag.id, 'pic.png', png)).body.data;
    expect((await objectBytes(`blobs/${file.id}`)).equals(png)).toBe(true);
    const thumbnail = await request(t, 'GET', `/v1/files/${file.id}/thumbnail`, { key: alice.key });
    expect(thumbnail.status).toBe(200);
    expect(await derivedOf(t, file.id)).toEqual([`cache/${file.id}/256x256-q80.webp`]);
    expect((await objectBytes(`cache/${file.id}/256x256-q80.webp`)).equals(thumbnail.raw)).toBe(true);

    expect((await request(t, 'DELETE', `/v1/files/${file.id}`, { key: alice.key })).status).toBe(200);
    expect(await storedKeys(t)).not.toContain(file.id);
    expect(await derivedOf(t, file.id)).toEqual([]);
  });

  it('streams a file larger than a part through a multipart upload and serves ranges across its parts', async () => {
    const tag = await createTag(t, alice.key);
    const uploaded = await upload(t, alice.key, tag.id, 'big.txt', Buffer.from(randomBytes(15 * MB).toString('base64')));
    expect(uploaded.status, uploaded.text).toBe(201);
    const { id, size } = uploaded.body.data as { id: string; size: number };
    const whole = await request(t, 'GET', `/v1/files/${id}/download`, { key: alice.key });
    expect(whole.status).toBe(200);
    expect(whole.raw.length).toBe(size);
    // 8 MB parts: this range spans the first part boundary.
    const start = 8 * MB - 10;
    const ranged = await request(t, 'GET', `/v1/files/${id}/download`, {
      key: alice.key,
      headers: { range: `bytes=${start}-${start + 19}` },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${start}-${start + 19}/${size}`);
    expect(ranged.raw.equals(whole.raw.subarray(start, start + 20))).toBe(true);
    expect(sha256(whole.raw)).toBe(sha256(await objectBytes(`blobs/${id}`)));
  });

  it('answers a missing object as a missing file on disk: 500, logged', async () => {
    const tag = await createTag(t, alice.key);
    const file = (await upload(t, alice.key, tag.id, 'lost.txt', Buffer.from('lost'))).body.data;
    await t.services.blobs.delete(file.id);
    const response = await request(t, 'GET', `/v1/files/${file.id}/download`, { key: alice.key });
    expectError(response, 500, 'internal_error');
  });

  it('tries to abort an upload left unfinished for over a day, and says so when the store cannot', async () => {
    const bucket = t.config.s3!.bucket;
    const started = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'blobs/file_00000000000000000000000001' }));
    await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: 'blobs/file_00000000000000000000000001',
        UploadId: started.UploadId,
        PartNumber: 1,
        Body: 'x',
      }),
    );
    lines.length = 0;
    t.clock.advance(UNFINISHED_UPLOAD_GRACE_MS + 60_000);
    const swept = await sweepCrashLeftovers(t.services);
    // S3 aborts it; s3rver can neither list nor abort unfinished uploads (501, 405), which is logged.
    const logged = lines.find((line) => /incomplete uploads/.test(String(line.msg)));
    expect(swept.abortedUploads === 1 || logged !== undefined, JSON.stringify({ swept, lines })).toBe(true);
    if (logged) expect(logged.msg).toContain(`the object store (bucket ${bucket})`);
  });

  it('reports the store in /readyz: 503 naming the bucket once it is gone', async () => {
    const other = await startTestApp({ blobStore: 's3' });
    try {
      expect((await request(other, 'GET', '/readyz')).status).toBe(200);
      await s3.send(new DeleteBucketCommand({ Bucket: other.config.s3!.bucket }));
      const response = await request(other, 'GET', '/readyz');
      expectError(response, 503, 'service_unavailable');
      expect(response.body.error.message).toContain(`the object store (bucket ${other.config.s3!.bucket})`);
    } finally {
      await other.close();
    }
  });
});

describe('the object store at start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tagsvc-s3-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = (overrides: Record<string, string>) => ({ DATA_DIR: dataDir, BLOB_STORE: 's3', ...s3Env('x-missing'), ...overrides });

  it.each([
    [{ BLOB_STORE: 'ftp' }, 'BLOB_STORE'],
    [{ S3_BUCKET: '' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'Not_A_Bucket' }, 'S3_BUCKET'],
    [{ S3_ENDPOINT: 'ftp://store' }, 'S3_ENDPOINT'],
    [{ S3_SECRET_ACCESS_KEY: '' }, 'S3_SECRET_ACCESS_KEY'],
    [{ S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE'],
  ])('refuses %j naming %s', (overrides, variable) => {
    expect(() => loadConfig(env(overrides))).toThrow(ConfigError);
    try {
      loadConfig(env(overrides));
    } catch (error) {
      expect((error as ConfigError).variable).toBe(variable);
    }
  });

  it('refuses to start on a missing bucket or refused credentials, naming what to fix', async () => {
    const bucket = await freshBucket();
    const start = (overrides: Record<string, string>) => createServices(loadConfig(env(overrides)), { log: pino({ level: 'silent' }) });
    await expect(start({ S3_BUCKET: 'no-such-bucket' })).rejects.toThrow(/Invalid S3_BUCKET: the bucket "no-such-bucket" does not exist/);
    await expect(start({ S3_BUCKET: bucket, S3_ACCESS_KEY_ID: 'wrong', S3_SECRET_ACCESS_KEY: 'wrong' })).rejects.toThrow(
      /Invalid S3_ACCESS_KEY_ID: access .* refused/,
    );
    const started = await start({ S3_BUCKET: bucket });
    await started.close();
  });

  it('`tagsvc serve` stops with one line naming the missing bucket', async () => {
    const result = await runCli(['serve'], { ...env({ S3_BUCKET: 'no-such-bucket' }), PORT: '0' });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('S3_BUCKET');
    expect(lines[0]).toContain('no-such-bucket');
  });
});
