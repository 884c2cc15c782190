import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { dataEnv } from '../lib/data.js';
import { DayGenerator, type ActiveTags, type DayRows, type GeneratedTag } from './day.js';
import { HOUR_WEIGHTS, Visitors, WEEKDAY_WEIGHTS, ZIPF_EXPONENT } from './model.js';
import { MonthSets, SCOPE_MONTHS, TAG_MONTHS } from './month-sets.js';
import { PostgresSink } from './postgres-sink.js';
import { AliasTable, Random } from './random.js';
import { createOwnerAndTags } from './setup.js';
import { SqliteSink } from './sqlite-sink.js';
import { TABLE_NAMES, type Sink } from './tables.js';

export interface GenerateOptions {
  root: string;
  /** DATA_DIR: the SQLite file, and on PostgreSQL the secret key the CLI and service share. */
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
  views: number;
  tags: number;
  seed: number;
  progress(message: string): void;
}

/** What the bench needs to know about a generated dataset; written beside it as JSON. */
/** Moves on whenever the generated tables change: a kept dataset of another version is made anew. */
export const DATASET_VERSION = 5;

export interface DatasetManifest {
  version: typeof DATASET_VERSION;
  /** `sqlite`, or the PostgreSQL server, database and schema (no password). */
  database: string;
  views: number;
  tags: number;
  seed: number;
  generatedAt: string;
  /** First day with views: today − 364 at generation. */
  firstDay: string;
  email: string;
  /** Enterprise key with every permission (analytics:read among them). */
  key: string;
  /** Every tag with the views generated for it, most viewed first. */
  tagList: Array<{ id: string; shortId: string; views: number }>;
  rows: Record<keyof DayRows, number>;
  seconds: { setup: number; generation: number };
  viewsPerSecond: number;
  rowsPerSecond: number;
}

const DAY_MS = 86_400_000;
const DAYS = 365;

export function describeDatabase(databaseUrl: string | undefined, schema: string | undefined): string {
  if (!databaseUrl) return 'sqlite';
  const url = new URL(databaseUrl);
  return `postgres://${url.host}${url.pathname} (schema ${schema ?? 'public'})`;
}

/** Zipf weights by a random rank, a share of QR scans, and a first day for each tag. */
function shapeTags(owners: Awaited<ReturnType<Sink['readTags']>>, random: Random): GeneratedTag[] {
  const ranks = owners.map((_, i) => i + 1);
  for (let i = ranks.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [ranks[i], ranks[j]] = [ranks[j]!, ranks[i]!];
  }
  return owners.map((owner, i) => ({
    id: owner.id,
    environment: owner.environment,
    ownerId: owner.owner_id,
    organizationId: owner.organization_id,
    weight: 1 / ranks[i]! ** ZIPF_EXPONENT,
    qrShare: 0.35 + 0.4 * random.next(),
    // Most tags are older than the period; three in ten were put up during it.
    firstDay: random.next() < 0.7 ? 0 : random.int(300),
  }));
}

/** Views per day: weekly rhythm, growth over the year, day-to-day noise, only active tags. */
function viewsPerDay(total: number, tags: GeneratedTag[], firstDayMs: number, until: number, random: Random): number[] {
  const allWeight = tags.reduce((sum, t) => sum + t.weight, 0);
  const weights = Array.from({ length: DAYS }, (_, d) => {
    const start = firstDayMs + d * DAY_MS;
    const active = tags.reduce((sum, t) => sum + (t.firstDay <= d ? t.weight : 0), 0) / allWeight;
    const elapsed = HOUR_WEIGHTS.reduce(
      (sum, w, h) => sum + (w * Math.max(0, Math.min(3_600_000, until - (start + h * 3_600_000)))) / 3_600_000,
      0,
    );
    const dayShare = elapsed / HOUR_WEIGHTS.reduce((a, b) => a + b, 0);
    return (
      WEEKDAY_WEIGHTS[new Date(start).getUTCDay()]! * (0.7 + (0.6 * d) / (DAYS - 1)) * (0.85 + 0.3 * random.next()) * active * dayShare
    );
  });
  // Largest remainder, so the days add up to exactly `total`.
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const counts = exact.map(Math.floor);
  const order = exact.map((x, d) => [x - Math.floor(x), d] as const).sort((a, b) => b[0] - a[0]);
  const missing = total - counts.reduce((a, b) => a + b, 0);
  for (let i = 0; i < missing; i++) counts[order[i % DAYS]![1]]!++;
  return counts;
}

function activeTags(tags: GeneratedTag[], day: number): ActiveTags {
  const indexes = Int32Array.from(tags.flatMap((t, i) => (t.firstDay <= day ? [i] : [])));
  return { indexes, picker: new AliasTable(Array.from(indexes, (i) => tags[i]!.weight)) };
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * Fills the database with `views` views over the past year across `tags` tags of one
 * Enterprise account, with every rollup the ViewRecorder maintains, and no events (generated
 * views never happened, so nothing must be delivered for them).
 */
export async function generateDataset(options: GenerateOptions): Promise<DatasetManifest> {
  const { progress } = options;
  const started = performance.now();
  mkdirSync(options.dataDir, { recursive: true });
  const env = dataEnv({ dataDir: options.dataDir, databaseUrl: options.databaseUrl, schema: options.schema });
  const { account, tagIds } = await createOwnerAndTags({ root: options.root, env, tags: options.tags, progress });
  const setupSeconds = (performance.now() - started) / 1000;

  const sink: Sink = options.databaseUrl ? await PostgresSink.open(options.databaseUrl, options.schema) : new SqliteSink(options.dataDir);
  try {
    if ((await sink.countViews()) > 0) throw new Error('the database already holds views; generate into an empty one');
    const owners = (await sink.readTags(tagIds)).sort((a, b) => (a.id < b.id ? -1 : 1));
    const random = new Random(options.seed);
    const tags = shapeTags(owners, random);
    // A minute before now: nothing in the future, nothing in the minute the bench then records.
    const until = Date.now() - 60_000;
    const firstDayMs = Math.floor(until / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
    const perDay = viewsPerDay(options.views, tags, firstDayMs, until, random);
    const generator = new DayGenerator(tags, new Visitors(Math.max(1000, Math.round(options.views * 0.3)), options.seed), random);

    const rows = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<keyof DayRows, number>;
    const genStart = performance.now();
    let lastReport = genStart;
    let active = activeTags(tags, 0);
    let views = 0;
    const scopeMonths = new MonthSets(SCOPE_MONTHS);
    const tagMonths = new MonthSets(TAG_MONTHS);
    for (let d = 0; d < DAYS; d++) {
      if (tags.some((t) => t.firstDay === d) && d > 0) active = activeTags(tags, d);
      const dayStart = firstDayMs + d * DAY_MS;
      const day = generator.generate(dayStart, perDay[d]!, Math.min(until, dayStart + DAY_MS), active, {
        index: d,
        open: dayStart + DAY_MS > until,
      });
      const dayKey = new Date(dayStart).toISOString().slice(0, 10);
      day.scope_month_visitors = scopeMonths.addDay(dayKey, day.scope_day_visitors);
      day.tag_month_visitors = tagMonths.addDay(dayKey, day.tag_day_visitors);
      await sink.write(day);
      for (const table of TABLE_NAMES) rows[table] += day[table].length;
      views += perDay[d]!;
      const now = performance.now();
      if (now - lastReport > 10_000 || d === DAYS - 1) {
        lastReport = now;
        const seconds = (now - genStart) / 1000;
        const allRows = Object.values(rows).reduce((a, b) => a + b, 0);
        progress(
          `  day ${d + 1}/${DAYS}: ${count(views)} views, ${count(allRows)} rows in ${seconds.toFixed(0)} s (${count(views / seconds)} views/s, ${count(allRows / seconds)} rows/s)`,
        );
      }
    }
    const numbered = generator.visitorRows(firstDayMs);
    const openMonths = { scope_month_visitors: scopeMonths.openMonthRows(), tag_month_visitors: tagMonths.openMonthRows() };
    await sink.write({ visitors: numbered, ...openMonths });
    rows.visitors = numbered.length;
    rows.scope_month_visitors += openMonths.scope_month_visitors.length;
    rows.tag_month_visitors += openMonths.tag_month_visitors.length;
    progress('  finishing: indexes of views, scope and monthly rollups, database settings');
    await sink.finish();
    const generationSeconds = (performance.now() - genStart) / 1000;
    const allRows = Object.values(rows).reduce((a, b) => a + b, 0);
    return {
      version: DATASET_VERSION,
      database: describeDatabase(options.databaseUrl, options.schema),
      views: options.views,
      tags: options.tags,
      seed: options.seed,
      generatedAt: new Date().toISOString(),
      firstDay: new Date(firstDayMs).toISOString().slice(0, 10),
      email: account.email,
      key: account.key,
      tagList: tags
        .map((t, i) => ({ id: t.id, shortId: owners[i]!.short_id, views: generator.tagViews[i]! }))
        .sort((a, b) => b.views - a.views || (a.id < b.id ? -1 : 1)),
      rows,
      seconds: { setup: setupSeconds, generation: generationSeconds },
      viewsPerSecond: options.views / generationSeconds,
      rowsPerSecond: allRows / generationSeconds,
    };
  } finally {
    await sink.close();
  }
}
