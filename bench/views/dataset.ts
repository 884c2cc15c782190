import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { utcDay } from '../lib/api.js';
import { dropSchema } from '../lib/data.js';
import { progress } from '../lib/measure.js';
import type { VariantContext } from '../lib/variant-context.js';
import { DATASET_VERSION, describeDatabase, generateDataset, type DatasetManifest } from './generate.js';

/** Where the analytics variant's data lives. */
export interface AnalyticsLocation {
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
  manifestFile: string;
}

/**
 * In the run's work directory (and a throwaway schema next to the run's), or, with
 * BENCH_ANALYTICS_DIR, in a directory (and the schema bench_analytics) kept for later runs.
 */
export function analyticsLocation({ settings, workDir, data }: VariantContext): AnalyticsLocation {
  const base = settings.analyticsDir ?? join(workDir, 'analytics');
  const dataDir = join(base, settings.databaseUrl ? 'postgres' : 'sqlite');
  const schema = settings.databaseUrl ? (settings.analyticsDir ? 'bench_analytics' : data.extraSchema('analytics')) : undefined;
  return { dataDir, databaseUrl: settings.databaseUrl, schema, manifestFile: join(dataDir, 'analytics-dataset.json') };
}

// What a generation leaves in its DATA_DIR; anything else there means the directory is not ours
// to wipe.
const OURS = /^(tagsvc\.sqlite(-wal|-shm|-journal)?|secret\.key|setup-service\.log|analytics-dataset\.json|files)$/;

function reusable(location: AnalyticsLocation, context: VariantContext): DatasetManifest | undefined {
  if (!context.settings.analyticsDir || !existsSync(location.manifestFile)) return undefined;
  const manifest = JSON.parse(readFileSync(location.manifestFile, 'utf8')) as DatasetManifest;
  const sameShape =
    manifest.version === DATASET_VERSION &&
    manifest.views === context.settings.analyticsViews &&
    manifest.tags === context.settings.analyticsTags &&
    manifest.database === describeDatabase(location.databaseUrl, location.schema);
  // A week old at most: the figures are for "the past year", which moves on.
  const recent = Date.now() - Date.parse(manifest.generatedAt) < 7 * 86_400_000;
  return sameShape && recent ? manifest : undefined;
}

let dataset: Promise<DatasetManifest> | undefined;

/** The dataset the analytics scenarios measure: generated once per run, or reused (see above). */
export function ensureAnalyticsDataset(context: VariantContext): Promise<DatasetManifest> {
  dataset ??= prepare(context);
  return dataset;
}

/** Whether the dataset's year is today's (a reused one may start a few days earlier). */
export function isCurrent(manifest: DatasetManifest): boolean {
  return manifest.firstDay === utcDay(-364);
}

async function prepare(context: VariantContext): Promise<DatasetManifest> {
  const location = analyticsLocation(context);
  const kept = reusable(location, context);
  if (kept) {
    progress(
      `  reusing the analytics dataset of ${kept.generatedAt} in ${location.dataDir} (${kept.views.toLocaleString('en-US')} views, ${kept.tags} tags)`,
    );
    return kept;
  }
  if (existsSync(location.dataDir)) {
    const strangers = readdirSync(location.dataDir).filter((name) => !OURS.test(name));
    if (strangers.length > 0)
      throw new Error(`${location.dataDir} holds files the generator did not write (${strangers.slice(0, 3).join(', ')}); not wiping it`);
    rmSync(location.dataDir, { recursive: true, force: true });
  }
  if (location.databaseUrl && location.schema) await dropSchema(location.databaseUrl, location.schema);
  const { analyticsViews: views, analyticsTags: tags } = context.settings;
  progress(
    `  generating the analytics dataset: ${views.toLocaleString('en-US')} views across ${tags.toLocaleString('en-US')} tags (${describeDatabase(location.databaseUrl, location.schema)})`,
  );
  const manifest = await generateDataset({
    root: context.root,
    dataDir: location.dataDir,
    databaseUrl: location.databaseUrl,
    schema: location.schema,
    views,
    tags,
    seed: 1,
    progress,
  });
  writeFileSync(location.manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  progress(
    `  generated in ${manifest.seconds.generation.toFixed(0)} s (+${manifest.seconds.setup.toFixed(0)} s setup): ` +
      `${Math.round(manifest.viewsPerSecond).toLocaleString('en-US')} views/s, ${Math.round(manifest.rowsPerSecond).toLocaleString('en-US')} rows/s`,
  );
  return manifest;
}
