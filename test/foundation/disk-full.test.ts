import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, request, type ApiResponse } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { mountSmallDisk, whyNoSmallDisk, type SmallDisk } from '../helpers/small-disk.js';
import { visit } from '../analytics/support.js';
import { CookieJar, csrfOf, get, signInHttp } from '../dashboard/support.js';
import { createTag, filesUnder, multipart, sha256, upload } from '../files/helpers.js';

const DISK_MB = 8;
/** What a full disk still has free: room for the first bytes of a write, never for a whole one. */
const LEFT_FREE = 8 * 1024;
const onSqlite = !process.env.TEST_DATABASE_URL;
const noSmallDisk = whyNoSmallDisk();

/** Serves one text file for files/from-url. */
async function startOrigin(content: Buffer) {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(content);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes.txt` };
}

const where = onSqlite ? 'SQLite in it' : 'PostgreSQL elsewhere: the files side';
const title = `a full disk (DATA_DIR on a ${DISK_MB} MB tmpfs, ${where})${noSmallDisk ? ` (skipped: ${noSmallDisk})` : ''}`;

describe.skipIf(noSmallDisk)(title, () => {
  let disk: SmallDisk;
  let dataDir: string;
  let tag: { id: string; short_id: string };
  let photo: { id: string };
  let photoBytes: Buffer;
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let jar: CookieJar;
  /** Everything answered 2xx while the disk was full or after: each must be found stored. */
  const answered = { tags: [] as string[], files: [] as string[] };

  const tmpFiles = () => filesUnder(join(dataDir, 'files', 'tmp'));
  const blobs = () => filesUnder(join(dataDir, 'files', 'blobs')).sort();
  const bigText = Buffer.alloc(64 * 1024, 'a');

  const createBigTag = () =>
    request(t, 'POST', '/v1/tags', {
      key: account.key,
      body: { title: 'Big', content: [{ type: 'text', content: 'x'.repeat(20_000) }] },
    });
  const fromUrl = () => request(t, 'POST', `/v1/tags/${tag.id}/files/from-url`, { key: account.key, body: { url: origin.url } });
  const dashboardUpload = async () => {
    const path = `/dashboard/tags/${tag.id}/files`;
    const token = csrfOf(await get(t, path, jar));
    const { body, contentType } = multipart([
      { name: '_csrf', value: token },
      { name: 'file', filename: 'form.txt', content: bigText, contentType: 'text/plain' },
    ]);
    return request(t, 'POST', path, { rawBody: body, headers: { 'content-type': contentType, cookie: jar.header(), origin: t.baseUrl } });
  };
  /** A PNG of noise, so that its renders are far larger than what the full disk has left. */
  const noise = () =>
    sharp({ create: { width: 400, height: 400, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .png()
      .toBuffer();
  const integrity = async () => (await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(t.database.db)).rows;
  const took = (response: ApiResponse, list: string[]) => {
    if (response.status >= 200 && response.status < 300) list.push(response.body.data.id);
  };

  beforeAll(async () => {
    disk = mountSmallDisk(DISK_MB);
    dataDir = disk.dir;
    origin = await startOrigin(bigText);
  });
  afterAll(async () => {
    origin?.server.close();
    disk?.unmount();
  });
  const t = useApp(() => ({ env: { DATA_DIR: dataDir, ALLOW_PRIVATE_NETWORKS: 'true' } }));
  const account = useAccount(t, 'pro');
  beforeAll(async () => {
    tag = await createTag(t, account.key, { title: 'Still readable', permissions: { read: 'public' } });
    photoBytes = await noise();
    photo = (await upload(t, account.key, tag.id, 'noise.png', photoBytes)).body.data;
    jar = await signInHttp(t, account.email);
  });

  it('answers every write 507 insufficient_storage, leaving no temp file and no blob behind', async () => {
    const blobsBefore = blobs();
    // The log emptied first, so SQLite's next write must grow it (a log that has room left from
    // earlier writes takes a few more before it must grow: each is then a 201, counted below).
    if (onSqlite) await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(t.database.db);
    disk.fill(LEFT_FREE);

    if (onSqlite) {
      let created = await createBigTag();
      for (let i = 0; created.status === 201 && i < 400; i++) {
        took(created, answered.tags);
        created = await createBigTag();
      }
      expectError(created, 507, 'insufficient_storage');
      expect(created.body.error.message).toMatch(/no storage space left/);
      const renamed = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: account.key, body: { title: 'Renamed' } });
      expectError(renamed, 507, 'insufficient_storage');
    }

    const uploaded = await upload(t, account.key, tag.id, 'big.txt', bigText);
    expectError(uploaded, 507, 'insufficient_storage');
    expectError(await fromUrl(), 507, 'insufficient_storage');
    const viaDashboard = await dashboardUpload();
    expect(viaDashboard.status, viaDashboard.text.slice(0, 300)).toBe(507);
    expect(viaDashboard.text).toContain('Out of storage space');

    expect(tmpFiles()).toEqual([]);
    expect(blobs()).toEqual(blobsBefore);
    const listed = await request(t, 'GET', `/v1/tags/${tag.id}/files`, { key: account.key });
    expect(listed.body.data.map((file: { id: string }) => file.id)).toEqual([photo.id]);
  });

  it('goes on answering reads', async () => {
    const read = await request(t, 'GET', `/v1/tags/${tag.id}`, { key: account.key });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.title).toBe('Still readable');

    const download = await request(t, 'GET', `/v1/files/${photo.id}/download`, { key: account.key });
    expect(download.status).toBe(200);
    expect(sha256(download.raw)).toBe(sha256(photoBytes));

    // A render the disk cannot keep is served all the same, from memory, and not cached.
    const render = await request(t, 'GET', `/v1/files/${photo.id}/download?width=300&format=png`, { key: account.key });
    expect(render.status, render.text.slice(0, 300)).toBe(200);
    expect((await sharp(render.raw).metadata()).width).toBe(300);
    expect(filesUnder(join(dataDir, 'files', 'cache', photo.id))).toEqual([]);
    expect(tmpFiles()).toEqual([]);

    // The page is a read: served, but on SQLite its view cannot be recorded, so it carries no
    // beacon (whose token would claim a view that was never stored).
    const page = await visit(t, tag.short_id);
    expect(page.response.status).toBe(200);
    expect(page.response.text).toContain('Still readable');
    if (onSqlite) expect(page.token).toBeUndefined();
    else expect(page.token).toBeDefined();

    // A signed-in page whose session is due to be touched (a write) shows all the same.
    t.clock.advance(5 * 60_000);
    const dashboard = await get(t, `/dashboard/tags/${tag.id}/files`, jar);
    expect(dashboard.status, dashboard.text.slice(0, 300)).toBe(200);

    if (onSqlite) expect(await integrity()).toEqual([{ integrity_check: 'ok' }]);
  });

  it('takes the same writes once space is freed, without a restart, and lost nothing it answered 2xx', async () => {
    disk.free();

    if (onSqlite) {
      const created = await createBigTag();
      expect(created.status, created.text).toBe(201);
      took(created, answered.tags);
      const renamed = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: account.key, body: { title: 'Renamed' } });
      expect(renamed.status, renamed.text).toBe(200);
    }
    const uploaded = await upload(t, account.key, tag.id, 'big.txt', bigText);
    expect(uploaded.status, uploaded.text).toBe(201);
    took(uploaded, answered.files);
    const fetched = await fromUrl();
    expect(fetched.status, fetched.text).toBe(201);
    took(fetched, answered.files);
    const viaDashboard = await dashboardUpload();
    expect(viaDashboard.status, viaDashboard.text.slice(0, 300)).toBe(303);

    const page = await visit(t, tag.short_id);
    expect(page.response.status).toBe(200);
    expect(page.token, 'a counted view embeds its beacon token').toBeDefined();
    const render = await request(t, 'GET', `/v1/files/${photo.id}/download?width=300&format=png`, { key: account.key });
    expect(render.status).toBe(200);
    expect(filesUnder(join(dataDir, 'files', 'cache', photo.id))).toHaveLength(1);

    for (const id of answered.tags) expect((await request(t, 'GET', `/v1/tags/${id}`, { key: account.key })).status).toBe(200);
    const listed = await request(t, 'GET', `/v1/tags/${tag.id}/files`, { key: account.key });
    const stored = listed.body.data.map((file: { id: string; name: string }) => file.id);
    expect(stored).toEqual(expect.arrayContaining([photo.id, ...answered.files]));
    expect(listed.body.data.map((file: { name: string }) => file.name).sort()).toEqual(['big.txt', 'form.txt', 'noise.png', 'notes.txt']);
    for (const id of answered.files) {
      const download = await request(t, 'GET', `/v1/files/${id}/download`, { key: account.key });
      expect(download.raw.equals(bigText)).toBe(true);
    }
    expect(tmpFiles()).toEqual([]);
    if (onSqlite) expect(await integrity()).toEqual([{ integrity_check: 'ok' }]);
  });
});
