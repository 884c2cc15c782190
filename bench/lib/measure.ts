import { assertAllSucceeded, generateLoad, type LoadRequest, type Measurement } from './load.js';
import type { BenchSettings } from './settings.js';

export const progress = (message: string) => process.stderr.write(`${message}\n`);

/** Where a measurement stands among its siblings, and how long it lasts. */
export interface MeasurePlan {
  slice: number;
  slices: number;
  seconds: number;
}

/**
 * One measured run into `into`, after a discarded warm-up before the first slice, so the JIT and
 * the service's caches are warm before anything counts.
 */
export async function measure(
  label: string,
  baseUrl: string,
  request: LoadRequest,
  settings: BenchSettings,
  plan: MeasurePlan,
  into: Measurement,
): Promise<void> {
  const options = { connections: settings.connections };
  const of = plan.slices > 1 ? ` (slice ${plan.slice}/${plan.slices})` : '';
  if (plan.slice === 1 && settings.warmupSeconds > 0) {
    progress(`  ${label}: warming up ${settings.warmupSeconds} s`);
    await generateLoad(baseUrl, request, { ...options, durationSeconds: settings.warmupSeconds });
  }
  progress(`  ${label}: measuring ${plan.seconds} s${of}`);
  const run = await generateLoad(baseUrl, request, { ...options, durationSeconds: plan.seconds }, into);
  progress(`  ${label}: ${Math.round(run.requestsPerSecond).toLocaleString('en-US')} req/s`);
  // Checked at once: fast 401s or 429s would otherwise pass for speed.
  assertAllSucceeded(label, run);
}

/** One side of a measurement in turns: a server, and where its runs are collected. */
export interface TurnSide {
  label: string;
  baseUrl: string;
  runs: Measurement;
}

/**
 * Each side measured for `totalSeconds` in all, in whole-second slices of BENCH_COMPARE_SLICE
 * (autocannon averages per-second samples, so a partial second would skew a slice), the last
 * slice taking what is left, the sides taking turns. A burst of other load on the machine (a
 * noisy neighbour of a shared VM, a test run) then lands on every side rather than on whichever
 * was being measured at the time. ABBA: the side that goes second in one slice goes first in
 * the next, so a machine that speeds up or slows down during the run favours none.
 */
export async function measureInTurns(
  sides: TurnSide[],
  request: LoadRequest,
  settings: BenchSettings,
  totalSeconds: number,
): Promise<void> {
  const slices = slicesOf(settings, totalSeconds);
  for (const [i, seconds] of slices.entries()) {
    const order = i % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order)
      await measure(side.label, side.baseUrl, request, settings, { slice: i + 1, slices: slices.length, seconds }, side.runs);
  }
}

/** The slices measureInTurns cuts `totalSeconds` (a whole number) into: e.g. 5 s → 2, 2, 1. */
export function slicesOf(settings: BenchSettings, totalSeconds: number): number[] {
  const slices: number[] = [];
  for (let left = totalSeconds; left > 0; left -= settings.compareSliceSeconds) slices.push(Math.min(settings.compareSliceSeconds, left));
  return slices;
}
