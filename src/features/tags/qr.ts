import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
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

async function render(text: string, options: QrOptions): Promise<Buffer> {
  const common = {
    errorCorrectionLevel: 'M' as const,
    margin: 4,
    width: options.size,
    color: { dark: `#${options.color}ff`, light: `#${options.background}ff` },
  };
  if (options.format === 'svg') return Buffer.from(await QRCode.toString(text, { ...common, type: 'svg' }), 'utf8');
  return QRCode.toBuffer(text, { ...common, type: 'png' });
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
