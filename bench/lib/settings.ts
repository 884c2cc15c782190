/**
 * Everything a run can be tuned with, read once from the environment. Defaults are chosen so
 * `npm run bench` with no variables gives comparable numbers from one machine to the next run.
 */
export interface BenchSettings {
  /** Seconds of measured load per target (baseline, service). */
  durationSeconds: number;
  /** Seconds of unmeasured load before each measurement, so the JIT and caches are warm. */
  warmupSeconds: number;
  /**
   * Baseline-then-service pairs. One is the default; more average out a noisy machine (shared
   * VMs swing by tens of percent from one 10 s window to the next).
   */
  rounds: number;
  /** Concurrent keep-alive connections autocannon keeps open. */
  connections: number;
  /** Scenario names to run (BENCH_ONLY=a,b); empty means all. */
  only: string[];
  /** LOG_LEVEL given to the service: `warn` keeps per-request logging out of the figures. */
  logLevel: string;
  /** PostgreSQL to run against instead of SQLite; a throwaway schema is created in it. */
  databaseUrl?: string;
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

export function readSettings(): BenchSettings {
  const connections = positiveNumber('BENCH_CONNECTIONS', 10);
  const rounds = positiveNumber('BENCH_ROUNDS', 1);
  if (!Number.isInteger(connections)) throw new Error('BENCH_CONNECTIONS must be a whole number');
  if (!Number.isInteger(rounds)) throw new Error('BENCH_ROUNDS must be a whole number');
  return {
    rounds,
    durationSeconds: positiveNumber('BENCH_DURATION', 10),
    warmupSeconds: positiveNumber('BENCH_WARMUP', 2, true),
    connections,
    only: (process.env.BENCH_ONLY ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    logLevel: process.env.BENCH_LOG_LEVEL?.trim() || 'warn',
    databaseUrl: process.env.BENCH_DATABASE_URL?.trim() || undefined,
  };
}
