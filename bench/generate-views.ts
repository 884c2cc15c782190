/**
 * Fills a tagsvc database with synthetic analytics: N views over the past year across M tags of
 * one Enterprise account, with every rollup, for the analytics-* bench scenarios. `npm run
 * bench` runs it itself; alone:
 *
 *   tsx bench/generate-views.ts --views 10000000 --tags 1000 --data-dir /tmp/tagsvc-views
 *   DATABASE_URL=postgres://… DATABASE_SCHEMA=views tsx bench/generate-views.ts --data-dir DIR …
 *
 * Options: --views N (default 10,000,000), --tags M (1,000), --seed S (1), --data-dir DIR
 * (or DATA_DIR; on PostgreSQL it still holds the secret key the CLI and the service share),
 * --manifest FILE (default DIR/analytics-dataset.json: the API key, the tags and their views).
 * The database must hold no views yet. Needs `npm run build` (it runs bin/tagsvc).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killAllNow } from './lib/children.js';
import { progress } from './lib/measure.js';
import { generateDataset } from './views/generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      views: { type: 'string', default: '10000000' },
      tags: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      'data-dir': { type: 'string' },
      manifest: { type: 'string' },
    },
  });
  const whole = (name: string, raw: string) => {
    const n = Number(raw.replaceAll('_', ''));
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0, got "${raw}"`);
    return n;
  };
  const dataDirArgument = values['data-dir'] ?? process.env.DATA_DIR;
  if (!dataDirArgument) throw new Error('--data-dir (or DATA_DIR) is required');
  const dataDir = resolve(dataDirArgument);
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  const schema = process.env.DATABASE_SCHEMA?.trim() || undefined;
  const views = whole('views', values.views);
  const tags = whole('tags', values.tags);
  progress(
    `generating ${views.toLocaleString('en-US')} views across ${tags.toLocaleString('en-US')} tags into ${databaseUrl ? `PostgreSQL schema ${schema ?? 'public'}` : dataDir}`,
  );
  const manifest = await generateDataset({ root, dataDir, databaseUrl, schema, views, tags, seed: whole('seed', values.seed), progress });
  const file = resolve(values.manifest ?? join(dataDir, 'analytics-dataset.json'));
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  const rows = Object.values(manifest.rows).reduce((a, b) => a + b, 0);
  progress(
    `done: ${rows.toLocaleString('en-US')} rows (${Object.entries(manifest.rows)
      .map(([t, n]) => `${t} ${n.toLocaleString('en-US')}`)
      .join(', ')}) ` +
      `in ${manifest.seconds.generation.toFixed(0)} s after ${manifest.seconds.setup.toFixed(0)} s of setup: ` +
      `${Math.round(manifest.viewsPerSecond).toLocaleString('en-US')} views/s, ${Math.round(manifest.rowsPerSecond).toLocaleString('en-US')} rows/s`,
  );
  progress(`manifest (API key, tags): ${file}`);
}

process.on('exit', killAllNow);
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`generate-views failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
