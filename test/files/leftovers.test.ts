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
 * What crashes leave in DATA_DIR: temp files of uploads no process writes any more (removed
 * once unchanged for 15 minutes) and blobs with no row (removed once in place for an hour).
 * Real files in the test's DATA_DIR; time moves by the injected clock.
 */
describe('crash leftovers in DATA_DIR', () => {
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
    const orphan = join(layout.blobs, orphanId.slice(-2), orphanId);
    mkdirSync(join(orphan, '..'), { recursive: true });
    writeFileSync(orphan, 'no row points here');
    const storedBlob = join(layout.blobs, fileId.slice(-2), fileId);
    expect(existsSync(storedBlob)).toBe(true);

    // Fresh: nothing is touched (a blob being committed right now looks just like this).
    await filesLeftoversJob.run(t.services);
    expect([deadTemp, liveTemp, orphan, storedBlob].map(existsSync)).toEqual([true, true, true, true]);

    // 16 minutes on; the live upload has just written another chunk, the dead one nothing.
    t.clock.advance(16 * MINUTE);
    const now = t.clock.now();
    utimesSync(liveTemp, now, now);
    await filesLeftoversJob.run(t.services);
    expect([deadTemp, liveTemp, orphan, storedBlob].map(existsSync)).toEqual([false, true, true, true]);

    // An hour on: the orphan blob goes; the stored file stays, and still downloads.
    t.clock.advance(45 * MINUTE);
    utimesSync(liveTemp, t.clock.now(), t.clock.now());
    await filesLeftoversJob.run(t.services);
    expect([liveTemp, orphan, storedBlob].map(existsSync)).toEqual([true, false, true]);
    const download = await request(t, 'GET', `/v1/files/${fileId}/download`, { key: alice.key });
    expect(download.status).toBe(200);
    expect(download.raw.equals(content)).toBe(true);
  });
});
