import type { BenchSettings } from './settings.js';

/**
 * Service variants: the same build on the same data, started with different settings. A
 * scenario names the variant it measures; the harness starts each one the first time a
 * scenario asks for it, so a run only pays for the variants its scenarios use.
 */
interface VariantDefinition {
  /** For the table, e.g. "rate limits on (memory)". */
  label: string;
  /** Environment on top of the common one (lib/data.ts), which leaves limits off and Redis unset. */
  env(settings: BenchSettings): Record<string, string>;
}

// One key at tens of thousands of req/s is far over any plan's limit (enterprise: 300 a minute),
// so with limits on every measured request would be a 429. The multiplier raises each window
// a hundred-thousand-fold (enterprise: 500,000 a second) so the limiter does all its work and
// never refuses.
const LIMITER_ON = { RATE_LIMITS: 'true', RATE_LIMIT_MULTIPLIER: '100000' };

export const VARIANTS = {
  // The limiter's own switch for benchmarks; failed-authentication limits still apply.
  default: { label: 'rate limits off', env: () => ({ RATE_LIMITS: 'false' }) },
  'limiter-memory': { label: 'rate limits on (memory)', env: () => LIMITER_ON },
  'limiter-redis': { label: 'rate limits on (Redis)', env: (settings) => ({ ...LIMITER_ON, REDIS_URL: settings.redisUrl }) },
} satisfies Record<string, VariantDefinition>;

export type VariantName = keyof typeof VARIANTS;

/** The variant's settings with any password in a URL masked, for the report and the console. */
export function describeVariant(name: VariantName, settings: BenchSettings): Record<string, string> {
  return Object.fromEntries(Object.entries(VARIANTS[name].env(settings)).map(([key, value]) => [key, maskPassword(value)]));
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
