import type { ServiceContext } from '../../context.js';
import { sweepStaleTemp } from '../../lib/blob-storage.js';
import * as repo from './files.repository.js';

/**
 * A temp file unchanged this long belongs to no live upload. An upload in progress changes its
 * file with every chunk; renders and zip inspection finish in seconds. A client that sends
 * nothing for this long has in practice gone away, and its upload then fails.
 */
export const DEAD_TEMP_AFTER_MS = 15 * 60 * 1000;

/**
 * A blob without a row is removed once it has been in place this long. An upload moves its
 * blob into place and commits its row within the same request, so anything younger may be a
 * commit in progress (in this or another process sharing DATA_DIR) and is left alone.
 */
export const ORPHAN_BLOB_GRACE_MS = 60 * 60 * 1000;

/**
 * Removes what crashes leave behind: temp files of uploads no process is writing any more, and
 * blobs whose row was never committed (a crash between moving the blob into place and the
 * commit) or whose removal after a delete failed. Safe to run from any number of processes.
 */
export async function sweepCrashLeftovers(ctx: ServiceContext) {
  const nowMs = ctx.clock.now().getTime();
  const temp = await sweepStaleTemp(ctx.config.dataDir, DEAD_TEMP_AFTER_MS, nowMs);
  const candidates: string[] = [];
  for await (const blob of ctx.blobs.list()) {
    if (nowMs - blob.changedAtMs > ORPHAN_BLOB_GRACE_MS) candidates.push(blob.key);
  }
  const kept = await repo.existingFileIds(ctx.db, candidates);
  const orphans = candidates.filter((key) => !kept.has(key));
  for (const key of orphans) await ctx.blobs.delete(key);
  return { tempFiles: temp.files, tempBytes: temp.bytes, orphanBlobs: orphans.length };
}
