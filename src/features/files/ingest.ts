import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { ApiError } from '../../errors.js';
import type { ContentFacts } from './file-types.js';
import { pipeToNewFile } from '../../lib/blob-storage.js';

const HEAD_BYTES = 64 * 1024;
const MAGIC_BYTES = 16;
const MB = 1024 * 1024;

export interface IngestLimits {
  /** The plan's per-file maximum: one byte more is 400 file_too_large, at once. */
  maxBytes: number;
  /**
   * Storage still free for the account when the upload started. Crossing it ends the upload
   * early with 507; the authoritative check is the reservation when the row is written.
   */
  storageLeft: number;
  /** Check that the content is UTF-8 text (text formats). */
  text: boolean;
}

export interface IngestResult extends ContentFacts {
  size: number;
  sha256: string;
}

export function fileTooLarge(maxBytes: number): ApiError {
  const limit = maxBytes >= MB ? `${Math.round(maxBytes / MB)} MB` : `${maxBytes} bytes`;
  return new ApiError('file_too_large', `The file exceeds your plan's maximum of ${limit} per file`);
}

export function storageExceeded(): ApiError {
  return new ApiError('storage_limit_exceeded', "This upload would exceed your plan's file storage; delete files to make room");
}

/**
 * Passes bytes through while counting, hashing, keeping the first bytes and checking UTF-8.
 * It fails the stream the moment a limit is crossed, so nothing past the limit is read.
 */
class Inspector extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  utf8Text: boolean;

  constructor(private readonly limits: IngestLimits) {
    super();
    this.utf8Text = limits.text;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limits.maxBytes) return callback(fileTooLarge(this.limits.maxBytes));
    if (this.size > this.limits.storageLeft) return callback(storageExceeded());
    this.hash.update(chunk);
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength);
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    if (this.utf8Text) {
      try {
        if (chunk.includes(0)) this.utf8Text = false;
        else this.decoder.decode(chunk, { stream: true });
      } catch {
        this.utf8Text = false;
      }
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.utf8Text) {
      try {
        this.decoder.decode();
      } catch {
        this.utf8Text = false;
      }
    }
    callback();
  }

  result(): IngestResult {
    const headBytes = Buffer.concat(this.headChunks);
    // The head may end inside a character; decode leniently, it is only looked at, not checked.
    const head = headBytes.toString('utf8').replace(/^\uFEFF/, '');
    return { size: this.size, sha256: this.hash.digest('hex'), utf8Text: this.utf8Text, head, magic: headBytes.subarray(0, MAGIC_BYTES) };
  }
}

/**
 * Streams `source` into a new file at `path` (which must not exist), and into `alsoTo` too when
 * given: only bytes that passed the limits reach either. Memory use is one chunk.
 */
export async function ingest(source: Readable, path: string, limits: IngestLimits, alsoTo?: Writable): Promise<IngestResult> {
  const inspector = new Inspector(limits);
  await pipeToNewFile(source, inspector, path, alsoTo);
  return inspector.result();
}
