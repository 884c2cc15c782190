import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { percentile, type Metric } from '../lib/metrics.js';
import { progress } from '../lib/measure.js';
import { RssSampler, type RssReport } from '../lib/rss.js';
import type { MetricsScenario, ScenarioContext } from '../lib/scenario.js';
import { getStraight, putStraight } from '../lib/object-store.js';
import { downloadDiscarding, uploadFile, type Transfer } from '../lib/transfer.js';
import { createBenchTag } from './tag-fixture.js';

const MB = 1_048_576;
/** Transfers per scenario: one 100 MB transfer lasts about a second, too short to trust alone. */
const TRANSFERS = 5;
/** The target: the server's peak RSS may grow by less than this while a file streams. */
const MAX_RSS_GROWTH_MB = 64;

/**
 * A text file of ASCII lines, written once per run in the work directory. Text makes the
 * service do its whole upload path (count, hash, UTF-8 check) rather than a magic-bytes check.
 */
function bigTextFile(workDir: string, mb: number): string {
  const path = join(workDir, `bench-${mb}mb.txt`);
  if (existsSync(path)) return path;
  const lines: string[] = [];
  let length = 0;
  for (let n = 0; length < MB; n++) {
    const line = `${String(n).padStart(6, '0')} The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs.\n`;
    lines.push(line);
    length += line.length;
  }
  const block = Buffer.from(lines.join('')).subarray(0, MB - 1);
  const newline = Buffer.from('\n');
  const total = Math.round(mb * MB);
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < total;) {
      // Every block ends in a newline, so the file is whole lines.
      const chunk = Buffer.concat([block, newline]).subarray(0, Math.min(MB, total - written));
      writeSync(fd, chunk);
      written += chunk.length;
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

interface StoredFile {
  id: string;
  key: string;
  size: number;
}

/** The file each store's download scenario reads back: its upload scenario's, or one uploaded unmeasured. */
const stored = new Map<'disk' | 's3', StoredFile>();
/** The disk's median MB/s, for the object store's ratio to it (the disk scenarios run first). */
const diskMedian = new Map<'upload' | 'download', number>();
/**
 * The target: through the service, the object store moves a file at least this
 * fraction as fast as the store takes it on its own (putStraight/getStraight).
 */
const MIN_STORE_PERCENT = 70;
/** Whether the baseline's object is in the bucket (the s3 upload scenario puts it). */
let baselinePut = false;

async function upload(
  context: ScenarioContext,
  path: string,
  tag: { id: string; key: string },
): Promise<{ transfer: Transfer; file: StoredFile }> {
  const transfer = await uploadFile(new URL(`/v1/tags/${tag.id}/files`, context.baseUrl), tag.key, {
    path,
    filename: 'bench-large.txt',
    contentType: 'text/plain',
  });
  if (transfer.status !== 201) throw new Error(`upload answered ${transfer.status}: ${transfer.body.slice(0, 500)}`);
  const { data } = JSON.parse(transfer.body) as { data: { id: string; size: number } };
  if (data.size !== transfer.bytes) throw new Error(`the service stored ${data.size} bytes of ${transfer.bytes}`);
  return { transfer, file: { id: data.id, key: tag.key, size: data.size } };
}

const ratesOf = (transfers: Transfer[]) => transfers.map((t) => t.bytes / MB / t.seconds);

/**
 * The figures of one scenario. For the object store, `alone` are the baseline's transfers, taken
 * in turns with the service's: the target is the service's median as a share of the store's
 * own; the share of the disk's is information (the disk is not what the service can beat).
 */
function transferMetrics(
  what: 'upload' | 'download',
  store: 'disk' | 's3',
  transfers: Transfer[],
  rss: RssReport,
  alone: Transfer[] = [],
): { metrics: Metric[]; details: Record<string, unknown> } {
  const rates = ratesOf(transfers);
  const median = percentile(rates, 50);
  if (store === 'disk') diskMedian.set(what, median);
  const disk = diskMedian.get(what);
  const aloneRates = ratesOf(alone);
  const aloneMedian = percentile(aloneRates, 50);
  const storeMetrics: Metric[] =
    alone.length > 0
      ? [
          { label: `${what}, object store alone (median of ${alone.length})`, value: aloneMedian, unit: 'MB/s', digits: 0 },
          {
            label: `${what} / store alone`,
            value: (100 * median) / aloneMedian,
            unit: '%',
            digits: 0,
            target: { op: '>=', value: MIN_STORE_PERCENT },
          },
        ]
      : [];
  const diskRatio: Metric[] =
    store === 's3' && disk !== undefined
      ? [{ label: `${what} s3/disk (information)`, value: (100 * median) / disk, unit: '%', digits: 0 }]
      : [];
  return {
    metrics: [
      { label: `${what} (median of ${transfers.length})`, value: median, unit: 'MB/s', digits: 0 },
      ...storeMetrics,
      ...diskRatio,
      { label: 'peak RSS growth', value: rss.growthMb, unit: 'MB', digits: 1, target: { op: '<', value: MAX_RSS_GROWTH_MB } },
    ],
    details: {
      bytes: transfers[0]!.bytes,
      seconds: transfers.map((t) => t.seconds),
      mbPerSecond: rates,
      ...(alone.length > 0 ? { storeAloneMbPerSecond: aloneRates } : {}),
      rss,
    },
  };
}

const rate = (transfer: Transfer) => `${(transfer.bytes / MB / transfer.seconds).toFixed(0)} MB/s`;

function uploadScenario(store: 'disk' | 's3'): MetricsScenario {
  return {
    kind: 'metrics',
    name: store === 'disk' ? 'file-upload-100mb' : 'file-upload-100mb-s3',
    description: `POST /v1/tags/{id}/files, a 100 MB text file streamed as multipart${store === 's3' ? ' into the object store' : ''}: MB/s and the server’s peak RSS growth`,
    variant: store === 'disk' ? 'files' : 'files-s3',
    async run(context) {
      const { fileMb } = context.run.settings;
      const path = bigTextFile(context.run.workDir, fileMb);
      const tag = await createBenchTag(context);
      const rss = await RssSampler.start(context.service.pid);
      const transfers: Transfer[] = [];
      const alone: Transfer[] = [];
      for (let i = 1; i <= TRANSFERS; i++) {
        // Side by side: the store on its own, then through the service, in turns.
        if (store === 's3') {
          alone.push(await putStraight(path));
          baselinePut = true;
        }
        const { transfer, file } = await upload(context, path, tag);
        transfers.push(transfer);
        stored.set(store, file);
        const baseline = store === 's3' ? ` (store alone ${rate(alone.at(-1)!)})` : '';
        progress(`  upload ${i}/${TRANSFERS}: ${rate(transfer)}${baseline}`);
      }
      return transferMetrics('upload', store, transfers, rss.stop(), alone);
    },
  };
}

function downloadScenario(store: 'disk' | 's3'): MetricsScenario {
  return {
    kind: 'metrics',
    name: store === 'disk' ? 'file-download-100mb' : 'file-download-100mb-s3',
    description: `GET /v1/files/{id}/download of that file${store === 's3' ? ' from the object store' : ''}, read and discarded: MB/s and the server’s peak RSS growth`,
    variant: store === 'disk' ? 'files' : 'files-s3',
    async run(context) {
      let file = stored.get(store);
      if (!file) {
        progress('  uploading the file first (not measured)');
        file = (await upload(context, bigTextFile(context.run.workDir, context.run.settings.fileMb), await createBenchTag(context))).file;
        stored.set(store, file);
      }
      // The baseline reads back what the upload scenario's baseline put (put it when that did not run).
      if (store === 's3' && !baselinePut) {
        await putStraight(bigTextFile(context.run.workDir, context.run.settings.fileMb));
        baselinePut = true;
      }
      const rss = await RssSampler.start(context.service.pid);
      const transfers: Transfer[] = [];
      const alone: Transfer[] = [];
      for (let i = 1; i <= TRANSFERS; i++) {
        if (store === 's3') {
          const straight = await getStraight();
          if (straight.status !== 200 || straight.bytes !== file.size)
            throw new Error(`the store alone read ${straight.bytes} of ${file.size} bytes`);
          alone.push(straight);
        }
        const transfer = await downloadDiscarding(new URL(`/v1/files/${file.id}/download`, context.baseUrl), {
          authorization: `Bearer ${file.key}`,
        });
        if (transfer.status !== 200 || transfer.bytes !== file.size)
          throw new Error(`download answered ${transfer.status} with ${transfer.bytes} of ${file.size} bytes`);
        transfers.push(transfer);
        const baseline = store === 's3' ? ` (store alone ${rate(alone.at(-1)!)})` : '';
        progress(`  download ${i}/${TRANSFERS}: ${rate(transfer)}${baseline}`);
      }
      return transferMetrics('download', store, transfers, rss.stop(), alone);
    },
  };
}

export const fileUpload = uploadScenario('disk');
export const fileDownload = downloadScenario('disk');
/** The same through BLOB_STORE=s3, after the disk's (scenarios/index.ts), with the ratio s3/disk. */
export const fileUploadS3 = uploadScenario('s3');
export const fileDownloadS3 = downloadScenario('s3');
