import type { ServiceContext } from '../../context.js';
import { failureReason } from '../../errors.js';
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
 * An upload into an object store that was begun this long ago and never finished is given up.
 * An upload streams into the store for as long as its client sends (500 MB over a slow line
 * takes hours), and no live upload may lose its parts; a dead one only costs their space.
 */
export const UNFINISHED_UPLOAD_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * Gives up uploads into the store that a process began over UNFINISHED_UPLOAD_GRACE_MS ago and
 * never finished. A store that cannot list or abort them only costs their space until its own
 * expiry (a bucket lifecycle rule): said in one log line, and the rest of the sweep goes on.
 */
async function abortIncompleteUploads(ctx: ServiceContext, nowMs: number): Promise<number> {
  const advice = 'their parts stay until the store expires them (a lifecycle rule for incomplete multipart uploads)';
  try {
    const { aborted, refused } = await ctx.blobs.abortIncompleteUploads(nowMs - UNFINISHED_UPLOAD_GRACE_MS);
    if (refused > 0) ctx.log.warn({ uploads: refused }, `${ctx.blobs.label} refused to abort incomplete uploads: ${advice}`);
    return aborted;
  } catch (error) {
    ctx.log.warn({ reason: failureReason(error) }, `${ctx.blobs.label} could not list or abort incomplete uploads: ${advice}`);
    return 0;
  }
}

/**
 * Removes what crashes leave behind: temp files of uploads no process is writing any more,
 * uploads into an object store started over UNFINISHED_UPLOAD_GRACE_MS ago and never finished,
 * and blobs whose row was never committed (a crash between moving the blob into place and the
 * commit) or whose removal after a delete failed. Safe to run from any number of processes.
 */
export async function sweepCrashLeftovers(ctx: ServiceContext) {
  const nowMs = ctx.clock.now().getTime();
  const temp = await sweepStaleTemp(ctx.config.dataDir, DEAD_TEMP_AFTER_MS, nowMs);
  const uploads = await abortIncompleteUploads(ctx, nowMs);
  const candidates: string[] = [];
  for await (const blob of ctx.blobs.list()) {
    if (nowMs - blob.changedAtMs > ORPHAN_BLOB_GRACE_MS) candidates.push(blob.key);
  }
  const kept = await repo.existingFileIds(ctx.db, candidates);
  const orphans = candidates.filter((key) => !kept.has(key));
  for (const key of orphans) await ctx.blobs.delete(key);
  return { tempFiles: temp.files, tempBytes: temp.bytes, abortedUploads: uploads, orphanBlobs: orphans.length };
}
