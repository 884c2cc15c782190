import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { latencyMetrics } from '../lib/metrics.js';
import { progress } from '../lib/measure.js';
import type { MetricsScenario } from '../lib/scenario.js';
import { uploadFile } from '../lib/transfer.js';
import { Random } from '../views/random.js';
import { createBenchTag } from './tag-fixture.js';

const WIDTH = 1600;
const HEIGHT = 1000;
/**
 * Requests in flight: rendering is CPU work in libvips' own threads, so a few at once keep both
 * cores busy; more would only queue inside the service.
 */
const CONCURRENCY = 4;

/**
 * A 1.6-megapixel JPEG that compresses like a photo: smooth gradients and waves with a little
 * noise (a flat colour would decode and scale unrealistically fast).
 */
async function photoLikeJpeg(): Promise<Buffer> {
  const random = new Random(7);
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 3;
      const wave = Math.sin(x / 37) * Math.cos(y / 53) * 40;
      const noise = (random.next() - 0.5) * 24;
      pixels[i] = Math.max(0, Math.min(255, (x / WIDTH) * 200 + wave + noise + 20));
      pixels[i + 1] = Math.max(0, Math.min(255, (y / HEIGHT) * 180 - wave + noise + 40));
      pixels[i + 2] = Math.max(0, Math.min(255, 120 + wave * 1.5 + noise));
    }
  }
  return sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/**
 * Every request asks for a size not asked before (the service caches each rendered size on
 * disk), so every one is a full render: decode, resize, WebP encode. Widths run 100–400; the
 * height moves on after each pass over the widths.
 */
function sizeOf(n: number): { width: number; height: number } {
  return { width: 100 + (n % 301), height: 150 + Math.floor(n / 301) };
}

export const thumbnails: MetricsScenario = {
  kind: 'metrics',
  name: 'thumbnails',
  description: `GET /v1/files/{id}/thumbnail of a ${((WIDTH * HEIGHT) / 1e6).toFixed(1)} MP JPEG, a new size (cache miss) each time, ${CONCURRENCY} at once`,
  variant: 'files',
  async run(context) {
    const tag = await createBenchTag(context);
    const image = await photoLikeJpeg();
    const uploaded = await uploadFile(new URL(`/v1/tags/${tag.id}/files`, context.baseUrl), tag.key, {
      buffer: image,
      filename: 'photo.jpg',
      contentType: 'image/jpeg',
    });
    if (uploaded.status !== 201) throw new Error(`image upload answered ${uploaded.status}: ${uploaded.body.slice(0, 500)}`);
    const fileId = (JSON.parse(uploaded.body) as { data: { id: string } }).data.id;
    progress(`  uploaded a ${WIDTH}×${HEIGHT} JPEG of ${Math.round(image.length / 1024)} KB`);

    let next = 0;
    const render = async () => {
      const { width, height } = sizeOf(next++);
      const started = performance.now();
      const response = await fetch(new URL(`/v1/files/${fileId}/thumbnail?width=${width}&height=${height}`, context.baseUrl), {
        headers: { authorization: `Bearer ${tag.key}` },
        signal: AbortSignal.timeout(30_000),
      });
      const body = await response.arrayBuffer();
      if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('image/')) {
        throw new Error(
          `thumbnail ${width}×${height} answered ${response.status} ${response.headers.get('content-type')}: ${Buffer.from(body).toString('utf8').slice(0, 300)}`,
        );
      }
      return performance.now() - started;
    };
    // Each worker renders back to back until the time is up; the last ones finish after it.
    const during = async (seconds: number, latencies?: number[]) => {
      const end = performance.now() + seconds * 1000;
      const worker = async () => {
        while (performance.now() < end) {
          const ms = await render();
          latencies?.push(ms);
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      return (performance.now() - started) / 1000;
    };

    const { warmupSeconds, durationSeconds } = context.run.settings;
    if (warmupSeconds > 0) {
      progress(`  warming up ${warmupSeconds} s`);
      await during(warmupSeconds);
    }
    progress(`  measuring ${durationSeconds} s`);
    const latencies: number[] = [];
    const seconds = await during(durationSeconds, latencies);
    return {
      metrics: [{ label: 'thumbnails', value: latencies.length / seconds, unit: '/s', digits: 1 }, ...latencyMetrics('latency', latencies)],
      details: {
        renders: latencies.length,
        seconds,
        concurrency: CONCURRENCY,
        image: { width: WIDTH, height: HEIGHT, bytes: image.length },
      },
    };
  },
};
