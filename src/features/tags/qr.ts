import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import QRCode from 'qrcode';
import sharp from 'sharp';

/** The pixel sizes a QR code can be made at. */
export const QR_MIN_SIZE = 64;
export const QR_MAX_SIZE = 2048;

/** A colour as given (`rrggbb` or `#rrggbb`, any case) in the one form renderers, caches and events use: `rrggbb`, lower case. */
export function normalizeColor(value: string): string {
  return value.replace(/^#/, '').toLowerCase();
}

export interface QrOptions {
  format: 'png' | 'svg';
  size: number;
  /** 6-digit hex without '#'. */
  color: string;
  background: string;
}

export interface QrImage {
  body: Buffer;
  contentType: string;
  etag: string;
}

// Rendering a 512 px PNG costs milliseconds; the same address and options give the same bytes.
const cache = new LRUCache<string, QrImage>({ max: 2000, maxSize: 64 * 1024 * 1024, sizeCalculation: (image) => image.body.length });

const MARGIN = 4;

function rgb(hex: string): [number, number, number] {
  const value = parseInt(hex, 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/**
 * The code's cells (modules plus quiet zone) as a one-pixel-per-cell image, scaled by libvips
 * with nearest-neighbour to exactly `size` pixels: exact colours, exact size (qrcode's own PNG
 * renderer scales by a fractional factor and can come out a pixel short), and the pixel work
 * runs on libvips' threads instead of the event loop.
 */
function renderPng(text: string, options: QrOptions): Promise<Buffer> {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const cells = modules.size + 2 * MARGIN;
  const [lr, lg, lb] = rgb(options.background);
  const [dr, dg, db] = rgb(options.color);
  const raw = Buffer.alloc(cells * cells * 3);
  for (let i = 0; i < cells * cells; i++) raw.set([lr, lg, lb], i * 3);
  for (let row = 0; row < modules.size; row++) {
    for (let column = 0; column < modules.size; column++) {
      if (modules.get(row, column)) raw.set([dr, dg, db], ((row + MARGIN) * cells + column + MARGIN) * 3);
    }
  }
  return sharp(raw, { raw: { width: cells, height: cells, channels: 3 } })
    .resize(options.size, options.size, { kernel: 'nearest' })
    .png()
    .toBuffer();
}

async function render(text: string, options: QrOptions): Promise<Buffer> {
  if (options.format === 'png') return renderPng(text, options);
  const svg = await QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: MARGIN,
    width: options.size,
    color: { dark: `#${options.color}ff`, light: `#${options.background}ff` },
  });
  return Buffer.from(svg, 'utf8');
}

/** The QR code of `text` (the scan address) as PNG or SVG of exactly `size` pixels. */
export async function qrImage(text: string, options: QrOptions): Promise<QrImage> {
  const key = JSON.stringify([text, options.format, options.size, options.color, options.background]);
  const cached = cache.get(key);
  if (cached) return cached;
  const body = await render(text, options);
  const image = {
    body,
    contentType: options.format === 'svg' ? 'image/svg+xml' : 'image/png',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
  cache.set(key, image);
  return image;
}
