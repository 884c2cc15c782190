import { analyticsLocation, ensureAnalyticsDataset } from '../views/dataset.js';
import { objectStoreEnv, startObjectStore } from './object-store.js';
import { receiverCaFile, writeReceiverCertificate } from './receiver.js';
import type { VariantContext } from './variant-context.js';

/** What a variant's settings and preparation may depend on. */

/**
 * Service variants: the same build, started with different settings (and, for some, other
 * data). A scenario names the variant it measures; the harness starts each one the first time a
 * scenario asks for it, so a run only pays for the variants its scenarios use.
 */
interface VariantDefinition {
  /** For the table, e.g. "rate limits on (memory)". */
  label: string;
  /** Environment on top of the common one (lib/data.ts), which leaves limits off and Redis unset. */
  env(context: VariantContext): Record<string, string>;
  /** Runs the webhook worker in the process (`serve` without --no-worker). */
  worker?: boolean;
  /** Runs before the process starts: files it reads at start-up, data it serves. */
  prepare?(context: VariantContext): Promise<void>;
}

// One key at tens of thousands of req/s is far over any plan's limit (enterprise: 300 a minute),
// so with limits on every measured request would be a 429. The multiplier raises each window
// a hundred-thousand-fold (enterprise: 500,000 a second) so the limiter does all its work and
// never refuses.
const LIMITER_ON = { RATE_LIMITS: 'true', RATE_LIMIT_MULTIPLIER: '100000' };
// The limiter's own switch for benchmarks; failed-authentication limits still apply.
const LIMITER_OFF = { RATE_LIMITS: 'false' };

export const VARIANTS = {
  default: { label: 'rate limits off', env: () => LIMITER_OFF },
  'limiter-memory': { label: 'rate limits on (memory)', env: () => LIMITER_ON },
  'limiter-redis': { label: 'rate limits on (Redis)', env: ({ settings }) => ({ ...LIMITER_ON, REDIS_URL: settings.redisUrl }) },
  // The default's settings in a process of its own: the file scenarios report its memory
  // growth, which must not depend on what other scenarios did to a shared process before.
  files: { label: 'rate limits off, own process', env: () => LIMITER_OFF },
  // The same, its files in an object store (s3rver in a process of its own).
  'files-s3': {
    label: 'rate limits off, own process, BLOB_STORE=s3 (s3rver)',
    env: () => ({ ...LIMITER_OFF, ...objectStoreEnv() }),
    prepare: ({ root, workDir }) => startObjectStore(root, workDir),
  },
  // Deliveries go to the bench's HTTPS receiver on 127.0.0.1: a loopback address (refused
  // unless ALLOW_PRIVATE_NETWORKS) with a self-signed certificate (trusted via OUTBOUND_CA_FILE).
  // The spec's 1000 deliveries a minute per webhook would cap 2 webhooks at 33/s; the fan-out
  // target (1000/s) measures the worker itself, so the cap is lifted here.
  webhooks: {
    label: 'worker on, receiver on loopback, per-webhook cap lifted',
    worker: true,
    env: ({ workDir }) => ({
      ...LIMITER_OFF,
      ALLOW_PRIVATE_NETWORKS: 'true',
      OUTBOUND_CA_FILE: receiverCaFile(workDir),
      WEBHOOK_DELIVERIES_PER_MINUTE: '1000000',
    }),
    prepare: ({ workDir }) => writeReceiverCertificate(workDir),
  },
  // The generated dataset (bench/views): its own DATA_DIR on SQLite, its own schema on PostgreSQL.
  analytics: { label: 'generated analytics data', env: analyticsEnv, prepare: prepareAnalytics },
  // The same with the worker, as `npm start` runs: its job rolls up the views pages commit, so
  // the page-recording figure pays for that work too.
  'analytics-worker': { label: 'generated analytics data, worker on', worker: true, env: analyticsEnv, prepare: prepareAnalytics },
} satisfies Record<string, VariantDefinition>;

async function prepareAnalytics(context: VariantContext): Promise<void> {
  await ensureAnalyticsDataset(context);
}

function analyticsEnv(context: VariantContext): Record<string, string> {
  const location = analyticsLocation(context);
  return { ...LIMITER_OFF, DATA_DIR: location.dataDir, ...(location.schema ? { DATABASE_SCHEMA: location.schema } : {}) };
}

export type VariantName = keyof typeof VARIANTS;

export function variant(name: VariantName): VariantDefinition {
  return VARIANTS[name];
}

/** The variant's settings with any password in a URL masked, for the report and the console. */
export function describeVariant(name: VariantName, context: VariantContext): Record<string, string> {
  return Object.fromEntries(Object.entries(VARIANTS[name].env(context)).map(([key, value]) => [key, maskPassword(value)]));
}

function maskPassword(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    if (!url.password) return value;
    url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
}
