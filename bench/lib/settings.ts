import { resolve } from 'node:path';

/**
 * Everything a run can be tuned with, read once from the environment. Defaults are chosen so
 * `npm run bench` with no variables gives comparable numbers from one machine to the next run.
 */
export interface BenchSettings {
  /** Seconds of measured load per server (a baseline scenario's: per round). */
  durationSeconds: number;
  /** Seconds of unmeasured load before each measurement, so the JIT and caches are warm. */
  warmupSeconds: number;
  /**
   * A baseline scenario measures each server durationSeconds × rounds in all. One is the
   * default; more average out a noisy machine (shared VMs swing by tens of percent from one
   * 10 s window to the next).
   */
  rounds: number;
  /** Concurrent keep-alive connections the load generator keeps open. */
  connections: number;
  /** Scenario names to run (BENCH_ONLY=a,b); empty means all. */
  only: string[];
  /** LOG_LEVEL given to the service: `warn` keeps per-request logging out of the figures. */
  logLevel: string;
  /** PostgreSQL to run against instead of SQLite; a throwaway schema is created in it. */
  databaseUrl?: string;
  /**
   * Seconds per slice in a baseline scenario or a comparison: each server's measured time is cut
   * into slices this long, the servers taking turns, so a burst of other load on the machine
   * (a test run, a noisy neighbour) lands on both rather than on whichever happened to be
   * measured at the time.
   */
  compareSliceSeconds: number;
  /** Redis for the variant that keeps rate-limit counters there. */
  redisUrl: string;
  /** Seconds of rendering per in-process QR measurement. */
  qrSeconds: number;
  /** Size of the file the file-upload/-download scenarios send, in MB (1 MB = 1,048,576 bytes). */
  fileMb: number;
  /** tag.created events the webhooks-fanout scenario fans out to its two webhooks. */
  webhookEvents: number;
  /** Views and tags of the generated analytics dataset (bench/generate-views.ts). */
  analyticsViews: number;
  analyticsTags: number;
  /**
   * Where the analytics dataset is kept between runs (generating 10 million views takes
   * minutes); unset, it is generated into the run's work directory and thrown away.
   */
  analyticsDir?: string;
}

function positiveNumber(name: string, fallback: number, allowZero = false): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new Error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number of seconds or a count, got "${raw}"`);
  }
  return value;
}

function wholeNumber(name: string, fallback: number): number {
  const value = positiveNumber(name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number`);
  return value;
}

export function readSettings(): BenchSettings {
  return {
    rounds: wholeNumber('BENCH_ROUNDS', 1),
    compareSliceSeconds: wholeNumber('BENCH_COMPARE_SLICE', 2),
    durationSeconds: wholeNumber('BENCH_DURATION', 10),
    warmupSeconds: positiveNumber('BENCH_WARMUP', 2, true),
    connections: wholeNumber('BENCH_CONNECTIONS', 50),
    only: (process.env.BENCH_ONLY ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    logLevel: process.env.BENCH_LOG_LEVEL?.trim() || 'warn',
    databaseUrl: process.env.BENCH_DATABASE_URL?.trim() || undefined,
    redisUrl: process.env.BENCH_REDIS_URL?.trim() || 'redis://127.0.0.1:6379',
    qrSeconds: positiveNumber('BENCH_QR_SECONDS', 5),
    fileMb: positiveNumber('BENCH_FILE_MB', 100),
    webhookEvents: wholeNumber('BENCH_WEBHOOK_EVENTS', 10_000),
    analyticsViews: wholeNumber('BENCH_VIEWS', 10_000_000),
    analyticsTags: wholeNumber('BENCH_TAGS', 1000),
    analyticsDir: process.env.BENCH_ANALYTICS_DIR?.trim() ? resolve(process.env.BENCH_ANALYTICS_DIR.trim()) : undefined,
  };
}
