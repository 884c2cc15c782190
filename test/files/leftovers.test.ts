import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesLeftoversJob } from '../../src/jobs/files-leftovers.js';
import { jobs } from '../../src/jobs/index.js';
import { filesLayout } from '../../src/lib/blob-storage.js';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, upload } from './helpers.js';

const MINUTE = 60_000;

/**
 * What crashes leave: temp files in DATA_DIR of uploads no process writes any more (removed
 * once unchanged for 15 minutes) and blobs with no row (removed once in place for an hour).
 * Real files in the test's DATA_DIR and its blob storage (TEST_BLOB_STORE); time moves by the
 * injected clock.
 */
describe('crash leftovers', () => {
  const t = useApp();
  const alice = useAccount(t);

  it('is one of the worker’s jobs (run at start, then every 5 minutes)', () => {
    expect(jobs).toContain(filesLeftoversJob);
  });

  it('removes dead temp files after 15 minutes and rowless blobs after an hour; keeps live temp files and stored files', async () => {
    const tag = await createTag(t, alice.key);
    const content = Buffer.from('kept: this file has its row\n');
    const uploaded = await upload(t, alice.key, tag.id, 'kept.txt', content);
    expect(uploaded.status, uploaded.text).toBe(201);
    const fileId: string = uploaded.body.data.id;

    const layout = filesLayout(t.config.dataDir);
    mkdirSync(layout.tmp, { recursive: true });
    const deadTemp = join(layout.tmp, 'upload-0123456789abcdef01234567');
    writeFileSync(deadTemp, Buffer.alloc(256 * 1024, 7));
    const liveTemp = join(layout.tmp, 'upload-live0123456789abcdef0123');
    writeFileSync(liveTemp, Buffer.alloc(1024, 1));
    // As a crash between moving the blob into place and committing its row leaves it.
    const orphanId = 'file_0000000000000000000000orph';
    const orphanTemp = join(layout.tmp, 'orphan');
    writeFileSync(orphanTemp, 'no row points here');
    await t.services.blobs.put(orphanId, orphanTemp);
    const stored = async () =>
      [await t.services.blobs.size(orphanId), await t.services.blobs.size(fileId)].map((size) => size !== undefined);
    expect(await stored()).toEqual([true, true]);

    // Fresh: nothing is touched (a blob being committed right now looks just like this).
    await filesLeftoversJob.run(t.services);
    expect([deadTemp, liveTemp].map(existsSync)).toEqual([true, true]);
    expect(await stored()).toEqual([true, true]);

    // 16 minutes on; the live upload has just written another chunk, the dead one nothing.
    t.clock.advance(16 * MINUTE);
    const now = t.clock.now();
    utimesSync(liveTemp, now, now);
    await filesLeftoversJob.run(t.services);
    expect([deadTemp, liveTemp].map(existsSync)).toEqual([false, true]);
    expect(await stored()).toEqual([true, true]);

    // An hour on: the orphan blob goes; the stored file stays, and still downloads.
    t.clock.advance(45 * MINUTE);
    utimesSync(liveTemp, t.clock.now(), t.clock.now());
    await filesLeftoversJob.run(t.services);
    expect(existsSync(liveTemp)).toBe(true);
    expect(await stored()).toEqual([false, true]);
    const download = await request(t, 'GET', `/v1/files/${fileId}/download`, { key: alice.key });
    expect(download.status).toBe(200);
    expect(download.raw.equals(content)).toBe(true);
  });
});
