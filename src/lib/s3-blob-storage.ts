import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough } from 'node:stream';
import { PART_BYTES, PARTS_IN_FLIGHT, PartUpload } from './s3-part-upload.js';
import { ConfigError, type S3Settings } from '../config.js';
import {
  discardTemp,
  isStorageKey,
  newTempPath,
  pipeToNewFile,
  requireDerivedName,
  requireStorageKey,
  type BlobStorage,
  type BlobUpload,
  type ByteRange,
} from './blob-storage.js';

/** Object names in the bucket: blobs/{file id}, and cache/{file id}/{name} for what was derived from it. */
const BLOBS = 'blobs/';
const blobName = (key: string) => `${BLOBS}${requireStorageKey(key)}`;
const derivedPrefix = (key: string) => `cache/${requireStorageKey(key)}/`;

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

const isMissing = (error: unknown) => statusOf(error) === 404;

/**
 * Files in an S3-compatible object store (docs/files.md "Object storage"). An upload streams
 * into a multipart upload while it arrives (PartUpload); a temp file (`files copy`) goes
 * through lib-storage with the same part settings; reads and ranges are GETs; renders are objects
 * next to their file. Nothing here depends on one store's quirks: an abort the store refuses is
 * counted, not assumed.
 */
export class S3BlobStorage implements BlobStorage {
  readonly label: string;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(
    private readonly settings: S3Settings,
    private readonly dataDir: string,
    timeouts: { connectMs: number; idleMs: number },
  ) {
    this.bucket = settings.bucket;
    this.label = `the object store (bucket ${settings.bucket})`;
    // The SDK warns on Node 20 about its versions of 2027, on stderr: not this installed one's concern.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // Checksums only where S3 requires them: the parts carry Content-Length and the content's
      // SHA-256 is verified by whoever needs it (`files copy`), from the files table.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: timeouts.connectMs, requestTimeout: timeouts.idleMs },
    });
  }

  /** The bytes go into a multipart upload while they arrive; the object appears at `complete`. */
  openUpload(key: string): BlobUpload {
    const upload = new PartUpload(this.client, { Bucket: this.bucket, Key: blobName(key) });
    let completed = false;
    return {
      sink: upload,
      complete: async (tempFile) => {
        try {
          await upload.complete();
          completed = true;
        } finally {
          await discardTemp(tempFile);
        }
      },
      abort: async () => {
        if (!completed) await upload.abort();
      },
    };
  }

  async put(key: string, tempFile: string): Promise<void> {
    try {
      const upload = new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key: blobName(key), Body: createReadStream(tempFile) },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
      });
      await upload.done();
    } finally {
      await discardTemp(tempFile);
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    return this.get(blobName(key), range);
  }

  async size(key: string): Promise<number | undefined> {
    return this.sizeOf(blobName(key));
  }

  async localCopy(key: string) {
    const path = await newTempPath(this.dataDir, 'copy');
    try {
      await pipeToNewFile(await this.read(key), new PassThrough(), path);
    } catch (error) {
      await discardTemp(path);
      throw error;
    }
    return { path, release: () => discardTemp(path) };
  }

  async delete(key: string): Promise<void> {
    const derived: string[] = [];
    for await (const object of this.objectsUnder(derivedPrefix(key))) derived.push(object.name);
    for (const name of [blobName(key), ...derived]) {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: name }));
    }
  }

  async *list(): AsyncIterable<{ key: string; changedAtMs: number }> {
    for await (const object of this.objectsUnder(BLOBS)) {
      const key = object.name.slice(BLOBS.length);
      if (isStorageKey(key)) yield { key, changedAtMs: object.changedAtMs };
    }
  }

  derivedSize(key: string, name: string): Promise<number | undefined> {
    return this.sizeOf(derivedPrefix(key) + requireDerivedName(name));
  }

  readDerived(key: string, name: string, range?: ByteRange): Promise<Readable> {
    return this.get(derivedPrefix(key) + requireDerivedName(name), range);
  }

  async putDerived(key: string, name: string, bytes: Uint8Array): Promise<void> {
    // One PUT: an object appears whole or not at all.
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: derivedPrefix(key) + requireDerivedName(name), Body: bytes }));
  }

  async abortIncompleteUploads(startedBeforeMs: number): Promise<{ aborted: number; refused: number }> {
    const counts = { aborted: 0, refused: 0 };
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: BLOBS, ...markers }));
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated.getTime() >= startedBeforeMs) continue;
        try {
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }));
          counts.aborted++;
        } catch (error) {
          // Gone meanwhile (finished or aborted by another process) is what was wanted.
          if (isMissing(error)) continue;
          // A store that does not implement aborting (405, 501): its parts stay until it expires them.
          if (statusOf(error) === 405 || statusOf(error) === 501) counts.refused++;
          else throw error;
        }
      }
      if (!page.IsTruncated) return counts;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  /** HeadBucket: the bucket exists and the credentials may use it. */
  async check(signal?: AbortSignal): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: signal });
    } catch (error) {
      throw this.explain(error);
    }
  }

  close(): void {
    this.client.destroy();
  }

  /** A HeadBucket failure as the setting to fix. */
  private explain(error: unknown): Error {
    const where = this.settings.endpoint ?? `AWS S3 in ${this.settings.region}`;
    switch (statusOf(error)) {
      case 404:
        return new ConfigError('S3_BUCKET', `the bucket "${this.bucket}" does not exist at ${where}`);
      case 401:
      case 403:
        return new ConfigError(
          'S3_ACCESS_KEY_ID',
          `access to the bucket "${this.bucket}" at ${where} was refused: check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`,
        );
      case 301:
        return new ConfigError('S3_REGION', `the bucket "${this.bucket}" is in another region than ${this.settings.region}`);
      default: {
        const reason = error instanceof Error ? error.message || error.name : String(error);
        return new ConfigError('S3_ENDPOINT', `the object store at ${where} did not answer (${reason})`);
      }
    }
  }

  private async get(name: string, range?: ByteRange): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: name, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    return answer.Body as Readable;
  }

  private async sizeOf(name: string): Promise<number | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: name }));
      return head.ContentLength;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  private async *objectsUnder(prefix: string): AsyncIterable<{ name: string; changedAtMs: number }> {
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) {
        if (object.Key && object.LastModified) yield { name: object.Key, changedAtMs: object.LastModified.getTime() };
      }
    }
  }
}
