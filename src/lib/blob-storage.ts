import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { failureReason, InsufficientStorage, isDiskFull } from '../errors.js';

/**
 * Where file contents live. Uploads are first written to a local temp file (they have to be
 * inspected before they are accepted), then handed to the storage with `put`. Local disk is
 * the only implementation today; an S3-compatible one would upload in `put` and fetch (or
 * presign) in `read` and `localCopy`.
 */
export interface BlobStorage {
  /** Moves a finished temp file into storage under `key`; the temp file is gone afterwards. */
  put(key: string, tempFile: string): Promise<void>;
  /** The bytes of `key`, or of the inclusive byte range `start`..`end`. */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** A local file holding the bytes of `key` (for image processing); call `release` when done. */
  localCopy(key: string): Promise<{ path: string; release(): Promise<void> }>;
  /** Removes `key` and what was derived from it (resized images); removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored key with the time it last changed (written or moved into place), in ms. */
  list(): AsyncIterable<{ key: string; changedAtMs: number }>;
}

/** When a file last changed: its content (mtime) or its name (ctime: a rename into place). */
function changedAtMs(info: { mtimeMs: number; ctimeMs: number }): number {
  return Math.max(info.mtimeMs, info.ctimeMs);
}

/** The names in `dir`, or none when it does not exist (nothing stored yet). */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * A write the disk refused for want of space, as the 507 it answers (InsufficientStorage, one
 * log line); any other failure as it is. Every write under DATA_DIR/files goes through here.
 */
function refusedForSpace(error: unknown): unknown {
  return isDiskFull(error) ? new InsufficientStorage('disk', failureReason(error)) : error;
}

/** Directory layout under DATA_DIR (docs/files.md). */
export function filesLayout(dataDir: string) {
  const root = join(dataDir, 'files');
  return {
    root,
    /** Uploads in progress. Same file system as `blobs`, so moving into place is a rename. */
    tmp: join(root, 'tmp'),
    /** Accepted files: blobs/{last two characters of the id}/{file id}. */
    blobs: join(root, 'blobs'),
    /** Derived data (resized images); safe to delete at any time. */
    cache: join(root, 'cache'),
  };
}

const KEY = /^[a-z]+_[0-9a-z]{26}$/;

export class LocalDiskStorage implements BlobStorage {
  private readonly dir: string;
  private readonly derived: string;

  constructor(dataDir: string) {
    const layout = filesLayout(dataDir);
    this.dir = layout.blobs;
    this.derived = layout.cache;
  }

  /** blobs/{fan-out}/{key}; the id's random tail spreads files over 1,296 directories. */
  pathOf(key: string): string {
    // Keys are our own ids; refusing anything else keeps a path from ever leaving the directory.
    if (!KEY.test(key)) throw new Error(`not a storage key: ${key}`);
    return join(this.dir, key.slice(-2), key);
  }

  async put(key: string, tempFile: string): Promise<void> {
    const target = this.pathOf(key);
    try {
      await mkdir(dirname(target), { recursive: true });
      await rename(tempFile, target);
    } catch (error) {
      throw refusedForSpace(error);
    }
  }

  async read(key: string, range?: { start: number; end: number }): Promise<ReadStream> {
    const stream = createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
    // Surface a missing blob as a rejection here rather than as a half-sent response.
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    return stream;
  }

  async localCopy(key: string) {
    const path = this.pathOf(key);
    await stat(path);
    return { path, release: async () => undefined };
  }

  async delete(key: string): Promise<void> {
    await Promise.all([rm(this.pathOf(key), { force: true }), rm(join(this.derived, key), { recursive: true, force: true })]);
  }

  async *list(): AsyncIterable<{ key: string; changedAtMs: number }> {
    for (const fanOut of await namesIn(this.dir)) {
      for (const key of await namesIn(join(this.dir, fanOut))) {
        if (!KEY.test(key)) continue;
        try {
          yield { key, changedAtMs: changedAtMs(await stat(join(this.dir, fanOut, key))) };
        } catch {
          // Removed meanwhile (a file deleted by a request or another process).
        }
      }
    }
  }
}

/** The configured storage: one per process, built by createServices. */
export function createBlobStorage(config: Pick<Config, 'dataDir'>): BlobStorage {
  return new LocalDiskStorage(config.dataDir);
}

/** A fresh path for an upload in progress; the caller removes it (`discardTemp`) on any failure. */
export async function newTempPath(dataDir: string, label = 'upload'): Promise<string> {
  const dir = filesLayout(dataDir).tmp;
  await mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw refusedForSpace(error);
  });
  return join(dir, `${label}-${randomBytes(12).toString('hex')}`);
}

/**
 * Pipes `source` through `through` into a new file at `path` (which must not exist). When it
 * fails, it returns only once the file is closed: a write stream destroyed while its file is
 * still being opened creates the file afterwards, so a removal right after the failure could
 * come first and leave the file behind for ever.
 */
export async function pipeToNewFile(source: Readable, through: Transform, path: string): Promise<void> {
  const sink = createWriteStream(path, { flags: 'wx' });
  try {
    await pipeline(source, through, sink);
  } catch (error) {
    if (!sink.closed) await once(sink, 'close');
    throw refusedForSpace(error);
  }
}

/**
 * Writes `bytes` to `path` whole or not at all: into a temp file named after `label`, then
 * renamed into place, so a reader never finds half a file. The temp file is gone either way.
 */
export async function writeIntoPlace(dataDir: string, label: string, path: string, bytes: Uint8Array): Promise<void> {
  const temp = await newTempPath(dataDir, label);
  try {
    await writeFile(temp, bytes, { flag: 'wx' });
    await mkdir(dirname(path), { recursive: true });
    await rename(temp, path);
  } catch (error) {
    throw refusedForSpace(error);
  } finally {
    await discardTemp(temp);
  }
}

export async function discardTemp(path: string | undefined): Promise<void> {
  if (!path) return;
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/**
 * Removes temp files left by a crash: those unchanged for `olderThanMs`. Age is the only test
 * that works on a shared volume, where other processes may be writing their own temp files
 * right now: a live upload changes its file with every chunk it receives.
 */
export async function sweepStaleTemp(dataDir: string, olderThanMs: number, nowMs: number): Promise<{ files: number; bytes: number }> {
  const dir = filesLayout(dataDir).tmp;
  const removed = { files: 0, bytes: 0 };
  for (const name of await namesIn(dir)) {
    const path = join(dir, name);
    try {
      const info = await stat(path);
      if (nowMs - changedAtMs(info) > olderThanMs) {
        await rm(path, { force: true, recursive: true });
        removed.files++;
        removed.bytes += info.isFile() ? info.size : 0;
      }
    } catch {
      // Gone already (finished or removed by another process).
    }
  }
  return removed;
}
