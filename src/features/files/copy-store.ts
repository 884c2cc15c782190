import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { ServiceContext } from '../../context.js';
import { discardTemp, newTempPath, pipeToNewFile, type BlobStorage } from '../../lib/blob-storage.js';
import * as repo from './files.repository.js';

export interface CopyProgress {
  id: string;
  outcome: 'copied' | 'already there' | 'failed';
  reason?: string;
}

export interface CopySummary {
  files: number;
  copied: number;
  alreadyThere: number;
  bytesCopied: number;
  failed: Array<{ id: string; reason: string }>;
}

interface Expected {
  id: string;
  size: number;
  sha256: string;
}

/** Counts and hashes what passes through. */
class Measure extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** Why `key` in `storage` is not the file the row describes, or undefined when it is. */
async function mismatch(storage: BlobStorage, file: Expected): Promise<string | undefined> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of await storage.read(file.id)) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  if (size !== file.size) return `${size} bytes, the files table says ${file.size}`;
  if (hash.digest('hex') !== file.sha256) return 'its SHA-256 differs from the files table';
  return undefined;
}

/** Copies one file through a local temp file, checked against its row on the way in and once stored. */
async function copyOne(ctx: ServiceContext, target: BlobStorage, file: Expected): Promise<string | undefined> {
  const temp = await newTempPath(ctx.config.dataDir, 'copy');
  try {
    const measure = new Measure();
    await pipeToNewFile(await ctx.blobs.read(file.id), measure, temp);
    if (measure.size !== file.size || measure.digest() !== file.sha256) {
      return `the source is damaged: ${measure.size} bytes that do not match the files table (size ${file.size} and SHA-256)`;
    }
    await target.put(file.id, temp);
  } finally {
    await discardTemp(temp);
  }
  const wrong = await mismatch(target, file);
  return wrong && `the copy does not verify: ${wrong}`;
}

/**
 * Copies every stored file (never what was derived from it) from the configured storage to
 * `target`, and verifies each copy by size and SHA-256 against the files table. A file the
 * target already holds and that verifies is left as it is, so a run stopped halfway is finished
 * by running it again. Nothing switches: the configured storage stays in use.
 */
export async function copyStoredFiles(
  ctx: ServiceContext,
  target: BlobStorage,
  onProgress: (progress: CopyProgress) => void = () => undefined,
): Promise<CopySummary> {
  const summary: CopySummary = { files: 0, copied: 0, alreadyThere: 0, bytesCopied: 0, failed: [] };
  for await (const file of repo.storedFileFacts(ctx.db)) {
    summary.files++;
    let reason: string | undefined;
    try {
      if ((await target.size(file.id)) === file.size && !(await mismatch(target, file))) {
        summary.alreadyThere++;
        onProgress({ id: file.id, outcome: 'already there' });
        continue;
      }
      reason = await copyOne(ctx, target, file);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    if (reason) {
      summary.failed.push({ id: file.id, reason });
      onProgress({ id: file.id, outcome: 'failed', reason });
    } else {
      summary.copied++;
      summary.bytesCopied += file.size;
      onProgress({ id: file.id, outcome: 'copied' });
    }
  }
  return summary;
}
