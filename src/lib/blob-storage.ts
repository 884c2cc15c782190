import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Writable, type Readable, type Transform } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { failureReason, InsufficientStorage, isDiskFull } from '../errors.js';

/**
 * Where file contents live: the local disk (LocalDiskStorage) or an S3-compatible object store
 * (S3BlobStorage). An upload is written to a local temp file while it arrives (it has to be
 * inspected before it is accepted) and, where the storage takes bytes as they come, to the
 * storage at the same time (`openUpload`). Next to each file the storage keeps what was
 * derived from it (resized images), under a name of the caller's.
 */
export interface BlobStorage {
  /** What start-up errors and /readyz call it. */
  readonly label: string;
  /** Starts storing an upload under `key`, the one way every upload reaches the storage. */
  openUpload(key: string): BlobUpload;
  /** Moves a finished temp file into storage under `key`; the temp file is gone afterwards. */
  put(key: string, tempFile: string): Promise<void>;
  /** The bytes of `key`, or of the inclusive byte range `start`..`end`; rejects when `key` is missing. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** The size of `key` in bytes, or undefined when it is not stored. */
  size(key: string): Promise<number | undefined>;
  /** A local file holding the bytes of `key` (for image processing); call `release` when done. */
  localCopy(key: string): Promise<{ path: string; release(): Promise<void> }>;
  /** Removes `key` and what was derived from it; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored key with the time it last changed (written or moved into place), in ms. */
  list(): AsyncIterable<{ key: string; changedAtMs: number }>;
  /** The size of what was derived from `key` under `name`, or undefined when none is kept. */
  derivedSize(key: string, name: string): Promise<number | undefined>;
  /** The bytes derived from `key` under `name`, whole or a range. */
  readDerived(key: string, name: string, range?: ByteRange): Promise<Readable>;
  /** Keeps `bytes` as derived from `key` under `name`, whole or not at all. */
  putDerived(key: string, name: string, bytes: Uint8Array): Promise<void>;
  /**
   * Gives up uploads into the store that were started before `startedBeforeMs` and never
   * finished (a process killed mid-upload). `refused`: those the store would not abort.
   */
  abortIncompleteUploads(startedBeforeMs: number): Promise<{ aborted: number; refused: number }>;
  /** Rejects with an error naming the setting to fix when the storage cannot be used. */
  check(signal?: AbortSignal): Promise<void>;
  /** Closes its connections (the process is stopping). */
  close(): void;
}

/**
 * An upload into the storage under one key, started before its first byte arrives. Exactly one
 * of `complete` and `abort` settles it; `abort` after `complete` has succeeded does nothing.
 */
export interface BlobUpload {
  /**
   * Where the arriving bytes are written as they arrive, beside the temp file, or undefined when
   * the storage takes the finished temp file instead (the disk: a rename). It applies
   * backpressure: a writer waits for 'drain'. Destroying it fails the upload.
   */
  readonly sink?: Writable;
  /**
   * Stores the upload under its key, once `tempFile` holds all of it and `sink` (if any) has
   * been ended. The temp file is gone once it succeeds.
   */
  complete(tempFile: string): Promise<void>;
  /** Gives the upload up: nothing stays under its key once it returns. Never depends on the store's abort. */
  abort(): Promise<void>;
}

export interface ByteRange {
  start: number;
  end: number;
}

/** File ids, the only keys: refusing anything else keeps a key from ever naming another path or object. */
const KEY = /^[a-z]+_[0-9a-z]{26}$/;
/** Derived names such as `256x256-q80.webp`. */
const DERIVED_NAME = /^[0-9a-z.-]{1,64}$/;

export function requireStorageKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a storage key: ${key}`);
  return key;
}

export function requireDerivedName(name: string): string {
  if (!DERIVED_NAME.test(name) || name.startsWith('.')) throw new Error(`not a derived name: ${name}`);
  return name;
}

export function isStorageKey(name: string): boolean {
  return KEY.test(name);
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

export class LocalDiskStorage implements BlobStorage {
  readonly label = 'the local disk';
  private readonly dir: string;
  private readonly derived: string;

  constructor(private readonly dataDir: string) {
    const layout = filesLayout(dataDir);
    this.dir = layout.blobs;
    this.derived = layout.cache;
  }

  /** blobs/{fan-out}/{key}; the id's random tail spreads files over 1,296 directories. */
  pathOf(key: string): string {
    return join(this.dir, key.slice(-2), requireStorageKey(key));
  }

  private derivedPathOf(key: string, name: string): string {
    return join(this.derived, requireStorageKey(key), requireDerivedName(name));
  }

  /** The bytes go to the temp file only; completing is the rename of `put`, so nothing is written twice. */
  openUpload(key: string): BlobUpload {
    requireStorageKey(key);
    return {
      complete: (tempFile) => this.put(key, tempFile),
      abort: async () => undefined,
    };
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

  async read(key: string, range?: ByteRange): Promise<ReadStream> {
    const stream = createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
    // Surface a missing blob as a rejection here rather than as a half-sent response.
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    return stream;
  }

  async size(key: string): Promise<number | undefined> {
    return sizeOf(this.pathOf(key));
  }

  async localCopy(key: string) {
    const path = this.pathOf(key);
    await stat(path);
    return { path, release: async () => undefined };
  }

  async delete(key: string): Promise<void> {
    await Promise.all([
      rm(this.pathOf(key), { force: true }),
      rm(join(this.derived, requireStorageKey(key)), { recursive: true, force: true }),
    ]);
  }

  async *list(): AsyncIterable<{ key: string; changedAtMs: number }> {
    for (const fanOut of await namesIn(this.dir)) {
      for (const key of await namesIn(join(this.dir, fanOut))) {
        if (!isStorageKey(key)) continue;
        try {
          yield { key, changedAtMs: changedAtMs(await stat(join(this.dir, fanOut, key))) };
        } catch {
          // Removed meanwhile (a file deleted by a request or another process).
        }
      }
    }
  }

  derivedSize(key: string, name: string): Promise<number | undefined> {
    return sizeOf(this.derivedPathOf(key, name));
  }

  async readDerived(key: string, name: string, range?: ByteRange): Promise<Readable> {
    return createReadStream(this.derivedPathOf(key, name), range ?? {});
  }

  putDerived(key: string, name: string, bytes: Uint8Array): Promise<void> {
    return writeIntoPlace(this.dataDir, 'render', this.derivedPathOf(key, name), bytes);
  }

  /** An upload to disk is a rename: none is ever left half done (temp files are swept apart). */
  async abortIncompleteUploads(): Promise<{ aborted: number; refused: number }> {
    return { aborted: 0, refused: 0 };
  }

  /** DATA_DIR is checked by reading the configuration (its secret key lives there). */
  async check(): Promise<void> {}

  close(): void {}
}

async function sizeOf(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => undefined))?.size;
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
 * Pipes `source` through `through` into a new file at `path` (which must not exist), and into
 * `alsoTo` as well when given (an upload's sink). When it fails, it returns only once the file
 * is closed: a write stream destroyed while its file is still being opened creates the file
 * afterwards, so a removal right after the failure could come first and leave the file behind
 * for ever.
 */
export async function pipeToNewFile(source: Readable, through: Transform, path: string, alsoTo?: Writable): Promise<void> {
  const file = createWriteStream(path, { flags: 'wx' });
  try {
    await pipeline(source, through, alsoTo ? new Tee(file, alsoTo) : file);
  } catch (error) {
    if (!file.closed) await once(file, 'close');
    throw refusedForSpace(error);
  }
}

/**
 * Writes every chunk to both targets and takes the next one only once both have room ('drain'),
 * so the slower one sets the pace and neither buffers more than its high-water mark. A failure
 * of either, or of the pipeline, destroys both.
 */
class Tee extends Writable {
  private readonly targets: Writable[];

  constructor(...targets: Writable[]) {
    super();
    this.targets = targets;
    for (const target of targets) target.once('error', (error) => this.destroy(error));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const full = this.targets.filter((target) => !target.write(chunk));
    if (full.length === 0) return callback();
    Promise.all(full.map((target) => once(target, 'drain'))).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    // Finished once both are: the file closed, the upload's parts sent.
    Promise.all(this.targets.map((target) => finished(target.end(), { readable: false }))).then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed after finishing (autoDestroy) is no failure: the targets keep what they hold.
    if (error || !this.writableFinished) {
      for (const target of this.targets) target.destroy(error ?? new Error('the upload ended before its end'));
    }
    callback(error);
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
