import { Writable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';

/**
 * An upload's bytes go in parts of this size (S3's smallest part is 5 MB), this many sent at a
 * time while the next one fills. So (PARTS_IN_FLIGHT + 1) × PART_BYTES of a file is in memory,
 * whatever its size.
 */
export const PART_BYTES = 5 * 1024 * 1024;
export const PARTS_IN_FLIGHT = 2;

/**
 * Part buffers of finished uploads, taken again by the next. Buffers of this size that live for
 * a part's round trip reach V8's old generation, where garbage is only collected once some 64 MB
 * of it have piled up; reusing them keeps the memory of uploads in a row flat. One upload's
 * worth is kept (15 MB): concurrent uploads allocate their own and leave them to the GC.
 */
const spare: Buffer[] = [];
const takeBuffer = () => spare.pop() ?? Buffer.allocUnsafeSlow(PART_BYTES);
const giveBack = (buffer: Buffer) => {
  if (spare.length < PARTS_IN_FLIGHT + 1) spare.push(buffer);
};

/**
 * A multipart upload fed as a Writable: arriving bytes are copied into a part buffer, a full
 * part is sent, and a write waits while PARTS_IN_FLIGHT parts are under way (backpressure
 * reaches the client). The object appears only at `complete`, after the caller's checks: a file
 * smaller than one part is sent then in one PUT, a larger one's upload is completed then.
 */
export class PartUpload extends Writable {
  private part: Buffer | undefined = takeBuffer();
  private filled = 0;
  private partsStarted = 0;
  private uploadId: Promise<string> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sent: CompletedPart[] = [];
  private failure: unknown;
  private completing = false;

  constructor(
    private readonly client: S3Client,
    private readonly object: { Bucket: string; Key: string },
  ) {
    super();
    // Its failures reach the writer through the pipeline, and `complete` through `failure`.
    this.on('error', () => undefined);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.take(chunk).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    // A file smaller than a part waits whole in its buffer for `complete`.
    const last = this.partsStarted > 0 && this.filled > 0 ? this.sendPart() : Promise.resolve();
    last.then(() => this.settled()).then(() => callback(), callback);
  }

  /** Makes the object, once the writing has finished: the upload's one visible effect. */
  async complete(): Promise<void> {
    if (!this.writableFinished) throw new Error('the upload was completed before its bytes were written');
    this.completing = true;
    if (this.partsStarted === 0) {
      const body = this.part!.subarray(0, this.filled);
      await this.client.send(new PutObjectCommand({ ...this.object, Body: body, ContentLength: body.length }));
      this.release();
      return;
    }
    const parts = [...this.sent].sort((a, b) => a.PartNumber! - b.PartNumber!);
    await this.client.send(
      new CompleteMultipartUploadCommand({ ...this.object, UploadId: await this.uploadId!, MultipartUpload: { Parts: parts } }),
    );
  }

  /**
   * Gives the upload up: stops taking bytes, waits for the parts under way, asks the store to
   * abort the multipart upload (one that refuses is left to the leftovers sweep, so a refusal
   * is no failure), and deletes the object if `complete` got as far as asking for it.
   */
  async abort(): Promise<void> {
    if (!this.destroyed) this.destroy(new Error('the upload was given up'));
    await this.settled().catch(() => undefined);
    const uploadId = await this.uploadId?.catch(() => undefined);
    if (uploadId) {
      await this.client.send(new AbortMultipartUploadCommand({ ...this.object, UploadId: uploadId })).catch(() => undefined);
    }
    this.release();
    if (this.completing) await this.client.send(new DeleteObjectCommand(this.object));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A small file's bytes wait in the buffer for `complete`; a buffer a request under way may
    // still read is left to the GC.
    if ((error || this.partsStarted > 0) && this.inFlight.size === 0) this.release();
    callback(error);
  }

  private release(): void {
    if (this.part) giveBack(this.part);
    this.part = undefined;
  }

  private async take(chunk: Buffer): Promise<void> {
    for (let offset = 0; offset < chunk.length;) {
      // Given up while this write waited for a part: nothing more is sent.
      if (!this.part || this.destroyed) throw new Error('the upload was given up');
      const copied = chunk.copy(this.part, this.filled, offset);
      this.filled += copied;
      offset += copied;
      if (this.filled === PART_BYTES) await this.sendPart();
    }
  }

  /** Sends the filled part and returns once fewer than PARTS_IN_FLIGHT are under way. */
  private async sendPart(): Promise<void> {
    const buffer = this.part!;
    const body = buffer.subarray(0, this.filled);
    const partNumber = ++this.partsStarted;
    this.part = takeBuffer();
    this.filled = 0;
    this.uploadId ??= this.client.send(new CreateMultipartUploadCommand(this.object)).then(({ UploadId }) => {
      if (!UploadId) throw new Error('the object store started a multipart upload without an UploadId');
      return UploadId;
    });
    // Never rejects: a failure is kept and fails the next write (or the end), not the process.
    const sending: Promise<void> = this.uploadId
      .then((UploadId) =>
        this.client.send(
          new UploadPartCommand({ ...this.object, UploadId, PartNumber: partNumber, Body: body, ContentLength: body.length }),
        ),
      )
      .then(({ ETag }) => {
        if (!ETag) throw new Error(`the object store answered part ${partNumber} without an ETag`);
        this.sent.push({ PartNumber: partNumber, ETag });
      })
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.inFlight.delete(sending);
        giveBack(buffer);
      });
    this.inFlight.add(sending);
    while (this.inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure;
  }

  /** Waits for every part under way; rejects with the first part that failed. */
  private async settled(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
  }
}
