import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { spawnTagsvc, type Spawned } from '../webhooks/support.js';
import { createTag, derivedOf, sha256, upload } from './helpers.js';
import { image } from './samples.js';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/**
 * No shared disk: two `serve` processes (the built CLI), each with a DATA_DIR of its own, and a
 * `worker`, on PostgreSQL, Redis and the object store, behave as one for files. PostgreSQL and
 * Redis only: SQLite is one machine's database.
 */
describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)('files across two hosts without a shared disk', () => {
  const t = useApp({ blobStore: 's3', env: { REDIS_URL: TEST_REDIS_URL ?? '' } });
  const alice = useAccount(t, 'enterprise');
  const processes: Spawned[] = [];
  const dataDirs: string[] = [];
  const hosts: Array<typeof t> = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), `tagsvc-host${i}-`));
      dataDirs.push(dataDir);
      const server = spawnTagsvc(['serve', '--no-worker'], { ...t.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
      processes.push(server);
      const [, url] = await server.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      hosts.push({ ...t, baseUrl: url! } as typeof t);
    }
    const workerDir = mkdtempSync(join(tmpdir(), 'tagsvc-worker-'));
    dataDirs.push(workerDir);
    const worker = spawnTagsvc(['worker'], { ...t.env, DATA_DIR: workerDir, LOG_LEVEL: 'info' });
    processes.push(worker);
    await worker.waitForOutput(/worker started/);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(processes.map((child) => child.stop('SIGTERM')));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('uploads through one, lists, downloads ranges, transforms and deletes through the other, and both serve the page', async () => {
    const [one, other] = [hosts[0]!, hosts[1]!];
    const tag = await createTag(one, alice.key);
    const content = await image('png', 400, 300);
    const uploaded = await upload(one, alice.key, tag.id, 'shared.png', content);
    expect(uploaded.status, uploaded.text).toBe(201);
    const id: string = uploaded.body.data.id;

    const listed = await request(other, 'GET', `/v1/tags/${tag.id}/files`, { key: alice.key });
    expect(listed.body.data.map((file: { id: string }) => file.id)).toEqual([id]);
    const whole = await request(other, 'GET', `/v1/files/${id}/download`, { key: alice.key });
    expect(sha256(whole.raw)).toBe(sha256(content));
    const ranged = await request(other, 'GET', `/v1/files/${id}/download`, { key: alice.key, headers: { range: 'bytes=10-99' } });
    expect(ranged.status).toBe(206);
    expect(ranged.raw.equals(content.subarray(10, 100))).toBe(true);

    // Rendered by one host, kept in the store, served by the other from there with the same ETag.
    const thumbnail = await request(other, 'GET', `/v1/files/${id}/thumbnail`, { key: alice.key });
    expect(thumbnail.status).toBe(200);
    expect(await derivedOf(t, id)).toHaveLength(1);
    const again = await request(one, 'GET', `/v1/files/${id}/thumbnail`, { key: alice.key });
    expect(again.headers.get('etag')).toBe(thumbnail.headers.get('etag'));
    expect(sha256(again.raw)).toBe(sha256(thumbnail.raw));

    await request(one, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { content: [{ type: 'image', file_id: id, alt: 'shared' }] } });
    for (const host of [one, other]) {
      const page = await request(host, 'GET', `/t/${tag.short_id}`);
      expect(page.text).toContain(`/t/${tag.short_id}/files/${id}`);
      const served = await request(host, 'GET', `/t/${tag.short_id}/files/${id}`);
      expect(served.status).toBe(200);
      expect(sha256(served.raw)).toBe(sha256(content));
    }

    expect((await request(other, 'DELETE', `/v1/files/${id}`, { key: alice.key })).status).toBe(200);
    expect(await t.services.blobs.size(id)).toBeUndefined();
    expect(await derivedOf(t, id)).toEqual([]);
    expect((await request(one, 'GET', `/v1/files/${id}/download`, { key: alice.key })).status).toBe(404);
    expect(processes[2]!.output()).not.toMatch(/job failed/);
  });
});
