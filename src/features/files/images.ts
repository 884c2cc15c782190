import { Readable } from 'node:stream';
import sharp from 'sharp';
import { InsufficientStorage, validationError } from '../../errors.js';
import type { BlobStorage } from '../../lib/blob-storage.js';

/** Image transforms (DECISIONS.md "Files"): sizes 1-4096, quality 1-100 (default 80). */
export const OUTPUT_FORMATS = ['webp', 'jpeg', 'png', 'avif'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const MAX_DIMENSION = 4096;
export const DEFAULT_QUALITY = 80;
export const THUMBNAIL = { width: 256, height: 256, format: 'webp' as OutputFormat };

export interface TransformRequest {
  width?: number;
  height?: number;
  quality?: number;
  format?: OutputFormat;
}

type Encoding = OutputFormat | 'gif';

const MIME_OF: Record<Encoding, string> = {
  webp: 'image/webp',
  jpeg: 'image/jpeg',
  png: 'image/png',
  avif: 'image/avif',
  gif: 'image/gif',
};

/** What a transform of a file without `format` produces: its own format, SVG as PNG. */
const NATIVE: Record<string, Encoding> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/svg+xml': 'png',
};

/** SVGs are rendered from memory (see below), so their size is bounded. */
const MAX_SVG_BYTES = 16 * 1024 * 1024;
/** Decoding bombs: a 4096×4096 output never needs more input than this. */
const MAX_INPUT_PIXELS = 100_000_000;

export interface ImageSource {
  id: string;
  sha256: string;
  mime_type: string;
  size: number;
}

export interface Variant {
  size: number;
  mime: string;
  etag: string;
  /** Its bytes, whole or an inclusive range: from the store, or from memory when the disk had no room to keep it. */
  open(range?: { start: number; end: number }): Promise<Readable>;
}

export function isTransformable(mime: string): boolean {
  return mime in NATIVE;
}

/**
 * Renders transformed images and keeps them in the blob storage, as derived from their file
 * (on disk under files/cache/{file id}/). They are derived data: deleting any only costs a
 * re-render, and a render the disk has no room to keep is served from memory (a read must not
 * fail for want of space). Renders of one variant requested at once share one job.
 */
export class ImageVariants {
  private readonly inFlight = new Map<string, Promise<Variant>>();

  constructor(private readonly storage: BlobStorage) {}

  async variant(file: ImageSource, request: TransformRequest): Promise<Variant> {
    const encoding: Encoding = request.format ?? NATIVE[file.mime_type]!;
    const quality = request.quality ?? DEFAULT_QUALITY;
    const key = `${request.width ?? 0}x${request.height ?? 0}-q${quality}.${encoding}`;
    const variant = ({ size, open }: Pick<Variant, 'size' | 'open'>): Variant => ({
      size,
      open,
      mime: MIME_OF[encoding],
      etag: `"${file.sha256.slice(0, 24)}-${key}"`,
    });
    const cached = await this.storage.derivedSize(file.id, key);
    if (cached !== undefined) return variant({ size: cached, open: this.fromStore(file.id, key) });
    const jobKey = `${file.id}/${key}`;
    let job = this.inFlight.get(jobKey);
    if (!job) {
      job = this.renderAndKeep(file, request, encoding, quality, key)
        .then(variant)
        .finally(() => this.inFlight.delete(jobKey));
      this.inFlight.set(jobKey, job);
    }
    return job;
  }

  /** Renders the variant and keeps it as `name`, unless the disk has no room for it. */
  private async renderAndKeep(
    file: ImageSource,
    request: TransformRequest,
    encoding: Encoding,
    quality: number,
    name: string,
  ): Promise<Pick<Variant, 'size' | 'open'>> {
    const bytes = await this.render(file, request, encoding, quality);
    try {
      await this.storage.putDerived(file.id, name, bytes);
    } catch (error) {
      if (!(error instanceof InsufficientStorage)) throw error;
      return { size: bytes.length, open: async (range) => Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]) };
    }
    return { size: bytes.length, open: this.fromStore(file.id, name) };
  }

  /** A kept render's bytes, whole or a range. */
  private fromStore(id: string, name: string): Variant['open'] {
    return (range) => this.storage.readDerived(id, name, range);
  }

  private async render(file: ImageSource, request: TransformRequest, encoding: Encoding, quality: number): Promise<Buffer> {
    const svg = file.mime_type === 'image/svg+xml';
    const source = svg ? await this.svgBytes(file) : await this.storage.localCopy(file.id);
    try {
      const input = Buffer.isBuffer(source) ? source : source.path;
      // An SVG is drawn from memory, never from its path: librsvg would otherwise resolve
      // references to neighbouring files (other tenants' blobs).
      const density = svg ? await svgDensity(input as Buffer, request) : undefined;
      let image = sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', ...(density ? { density } : {}) }).rotate();
      if (request.width !== undefined || request.height !== undefined) {
        // Aspect ratio kept, fit inside the box; rasters are never enlarged (it would only blur).
        image = image.resize({ width: request.width, height: request.height, fit: 'inside', withoutEnlargement: !svg });
      }
      switch (encoding) {
        case 'jpeg':
          image = image.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true });
          break;
        case 'webp':
          image = image.webp({ quality });
          break;
        case 'avif':
          image = image.avif({ quality });
          break;
        case 'png':
          image = image.png();
          break;
        case 'gif':
          image = image.gif();
          break;
      }
      // Rendered in memory, so a failure here is the image's, never the disk's.
      return await image.toBuffer().catch((error: unknown) => {
        throw validationError('file_id', `The image could not be processed (${(error as Error).message.split('\n')[0]})`);
      });
    } finally {
      if (!Buffer.isBuffer(source)) await source.release();
    }
  }

  private async svgBytes(file: ImageSource): Promise<Buffer> {
    if (file.size > MAX_SVG_BYTES)
      throw validationError('file_id', `SVG images larger than ${MAX_SVG_BYTES / 1024 / 1024} MB cannot be transformed`);
    const chunks: Buffer[] = [];
    for await (const chunk of await this.storage.read(file.id)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

/** The densities (DPI) sharp accepts for drawing an SVG; 72 draws it at its own size. */
const MIN_DENSITY = 1;
const MAX_DENSITY = 100_000;
const NATIVE_DENSITY = 72;
/** The longest side an SVG is drawn at: twice the largest output, and 8193² stays under MAX_INPUT_PIXELS. */
const MAX_SVG_DRAWING = 2 * MAX_DIMENSION;

/**
 * The density to draw an SVG at: large enough to cover the requested box (vector: no blur), or
 * its own size without one, and within what sharp accepts for every SVG from 1×1 to huge:
 * - at most MAX_SVG_DRAWING on its longest side, so never over the pixel limit;
 * - at least one pixel on its shortest side, as librsvg refuses an empty drawing;
 * - within sharp's 1–100000 DPI. Clamped there, the drawing is smaller than the box and the
 *   resize enlarges it: a 1×1 SVG is drawn at most 1389 px wide.
 * An SVG too large even at 1 DPI (over 720000 px square) is refused by the pixel limit (400).
 */
async function svgDensity(svg: Buffer, request: TransformRequest): Promise<number | undefined> {
  // Its header only: the size may be far over the pixel limit until it is scaled down.
  const { width, height } = await sharp(svg, { failOn: 'error', limitInputPixels: false })
    .metadata()
    .catch((error: unknown) => {
      throw validationError('file_id', `The image could not be processed (${(error as Error).message.split('\n')[0]})`);
    });
  if (!width || !height) return undefined;
  const box = request.width !== undefined || request.height !== undefined;
  const wanted = box ? Math.max((request.width ?? 0) / width, (request.height ?? 0) / height) : 1;
  const scale = Math.max(1 / Math.min(width, height), Math.min(wanted, MAX_SVG_DRAWING / Math.max(width, height)));
  const density = Math.min(MAX_DENSITY, Math.max(MIN_DENSITY, NATIVE_DENSITY * scale));
  return density === NATIVE_DENSITY ? undefined : density;
}
