import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';

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
 * Draws the PNG itself: qrcode's own PNG renderer scales by a fractional factor and can come
 * out a pixel short, while a code must be exactly the size asked for. Each output pixel takes
 * the colour of the module (or quiet-zone cell) it falls in.
 */
function renderPng(text: string, options: QrOptions): Buffer {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const cells = modules.size + 2 * MARGIN;
  const png = new PNG({ width: options.size, height: options.size, colorType: 2, inputHasAlpha: true });
  const dark = rgb(options.color);
  const light = rgb(options.background);
  const cellOf = (pixel: number) => Math.floor((pixel * cells) / options.size) - MARGIN;
  for (let y = 0; y < options.size; y++) {
    const row = cellOf(y);
    for (let x = 0; x < options.size; x++) {
      const column = cellOf(x);
      const inside = row >= 0 && column >= 0 && row < modules.size && column < modules.size;
      const [r, g, b] = inside && modules.get(row, column) ? dark : light;
      const offset = (y * options.size + x) * 4;
      png.data[offset] = r;
      png.data[offset + 1] = g;
      png.data[offset + 2] = b;
      png.data[offset + 3] = 255;
    }
  }
  return PNG.sync.write(png, { colorType: 2 });
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
