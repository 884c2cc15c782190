import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDiskStorage } from '../../src/lib/blob-storage.js';
import { request, runCli } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { freshBucket, s3Env, testS3Client } from '../helpers/s3.js';
import { spawnTagsvc } from '../webhooks/support.js';
import { createTag, derivedOf, sha256, upload } from './helpers.js';
import { image } from './samples.js';

/**
 * `tagsvc files copy` (built CLI) between the disk and the run's s3rver: everything stored is
 * copied and verified, nothing derived; a rerun skips what verifies and redoes what does not; a
 * run killed midway is finished by the next; a damaged source is reported, not copied.
 */
describe('tagsvc files copy', () => {
  let bucket = '';
  beforeAll(async () => {
    bucket = await freshBucket();
  });
  const t = useApp(() => ({ blobStore: 'disk', env: s3Env(bucket) }));
  const alice = useAccount(t);
  const s3 = testS3Client();
  afterAll(() => s3.destroy());
  const ids: string[] = [];
  const contents = new Map<string, Buffer>();
  const copy = (to: string, env: Record<string, string> = {}) => runCli(['files', 'copy', '--to', to, '--json'], { ...t.env, ...env });
  const summaryOf = (stdout: string) =>
    JSON.parse(stdout) as { copied: number; alreadyThere: number; files: number; failed: Array<{ id: string; reason: string }> };

  const objectBytes = async (key: string) => {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  };

  beforeAll(async () => {
    const tag = await createTag(t, alice.key);
    for (let i = 0; i < 16; i++) {
      const [name, content] =
        i === 0 ? ['pic.png', await image('png', 120, 80)] : [`f${i}.txt`, Buffer.from(randomBytes(50_000 + i).toString('hex'))];
      const uploaded = await upload(t, alice.key, tag.id, name, content);
      expect(uploaded.status, uploaded.text).toBe(201);
      ids.push(uploaded.body.data.id);
      contents.set(uploaded.body.data.id, content);
    }
    expect((await request(t, 'GET', `/v1/files/${ids[0]}/thumbnail`, { key: alice.key })).status).toBe(200);
  });

  it('is finished by a rerun after being killed midway, copying every file and nothing derived', async () => {
    const first = spawnTagsvc(['files', 'copy', '--to', 's3'], t.env);
    await first.waitForOutput(/(: copied\n[^]*){5}/);
    await first.stop('SIGKILL');
    const done = first
      .output()
      .split('\n')
      .filter((line) => line.endsWith(': copied')).length;
    expect(done).toBeLessThan(ids.length);

    const rerun = await copy('s3');
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = summaryOf(rerun.stdout);
    expect(summary.files).toBe(ids.length);
    expect(summary.failed).toEqual([]);
    expect(summary.alreadyThere).toBeGreaterThanOrEqual(done);
    expect(summary.copied + summary.alreadyThere).toBe(ids.length);
    expect(JSON.parse(rerun.stdout).next).toMatch(/Nothing was switched.*BLOB_STORE=s3/);
    // The copies are the files, byte for byte; the thumbnail stayed behind.
    for (const id of ids) expect(sha256(await objectBytes(`blobs/${id}`))).toBe(sha256(contents.get(id)!));
    expect(await derivedOf(t, ids[0]!)).toHaveLength(1);
    const derivedInBucket = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'cache/' }));
    expect(derivedInBucket.KeyCount).toBe(0);
  });

  it('skips verified copies, redoes a damaged copy, and reports a damaged source without copying it', async () => {
    const [damagedCopy, damagedSource] = [ids[1]!, ids[2]!];
    const bytes = contents.get(damagedCopy)!;
    // Same size, other bytes: only the checksum can tell.
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `blobs/${damagedCopy}`, Body: Buffer.alloc(bytes.length, 'x') }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `blobs/${damagedSource}`, Body: 'gone' }));
    writeFileSync(new LocalDiskStorage(t.config.dataDir).pathOf(damagedSource), 'damaged on disk');

    const result = await copy('s3');
    expect(result.code).toBe(1);
    const summary = summaryOf(result.stdout);
    expect(summary.copied).toBe(1);
    expect(summary.alreadyThere).toBe(ids.length - 2);
    expect(summary.failed).toEqual([{ id: damagedSource, reason: expect.stringMatching(/source is damaged/) }]);
    expect(sha256(await objectBytes(`blobs/${damagedCopy}`))).toBe(sha256(bytes));
  });

  it('copies back to disk, after which the disk serves every file', async () => {
    // Repair the damaged source in the bucket, then lose the disk.
    const repaired = ids[2]!;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `blobs/${repaired}`, Body: contents.get(repaired)! }));
    rmSync(join(t.config.dataDir, 'files', 'blobs'), { recursive: true, force: true });

    const result = await copy('disk', { BLOB_STORE: 's3' });
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result.stdout)).toMatchObject({ files: ids.length, copied: ids.length, alreadyThere: 0, failed: [] });
    for (const id of ids.slice(0, 5)) {
      const download = await request(t, 'GET', `/v1/files/${id}/download`, { key: alice.key });
      expect(sha256(download.raw)).toBe(sha256(contents.get(id)!));
    }
  });

  it('refuses a copy to the store in use, or to an unknown one', async () => {
    expect((await copy('disk')).code).toBe(2);
    expect((await copy('ftp')).code).toBe(2);
  });
});
