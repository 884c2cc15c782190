import { totalCpuSeconds, type Pinning } from './cpu.js';
import { assertAllSucceeded, type LoadRequest, type Measurement } from './load.js';
import type { BenchSettings } from './settings.js';
import { runWrk } from './wrk.js';

export const progress = (message: string) => process.stderr.write(`${message}\n`);

/** Where a measurement stands among its siblings, and how long it lasts. */
export interface MeasurePlan {
  slice: number;
  slices: number;
  seconds: number;
}

/** One side of a measurement in turns: a server, the processes it works in, and its runs. */
export interface TurnSide {
  label: string;
  baseUrl: string;
  runs: Measurement;
  /** The processes whose CPU counts for this side (the server, and a database server's). */
  pids(): Promise<number[]>;
}

/**
 * One measured run into `side.runs`, after a discarded warm-up before the first slice, so the
 * JIT and the service's caches are warm before anything counts.
 */
export async function measure(side: TurnSide, request: LoadRequest, context: MeasureContext, plan: MeasurePlan): Promise<void> {
  const { settings } = context;
  const load = (seconds: number) =>
    runWrk(side.baseUrl, request, { connections: settings.connections, seconds, core: context.pinning?.load, workDir: context.workDir });
  const of = plan.slices > 1 ? ` (slice ${plan.slice}/${plan.slices})` : '';
  if (plan.slice === 1 && settings.warmupSeconds > 0) {
    progress(`  ${side.label}: warming up ${settings.warmupSeconds} s`);
    await load(settings.warmupSeconds);
  }
  progress(`  ${side.label}: measuring ${plan.seconds} s${of}`);
  const pids = await side.pids();
  const cpuBefore = totalCpuSeconds(pids);
  const run = await load(plan.seconds);
  run.cpuSeconds = totalCpuSeconds(pids) - cpuBefore;
  side.runs.addRun(run);
  const micros = (run.cpuSeconds / Math.max(1, run.totalRequests)) * 1e6;
  progress(`  ${side.label}: ${Math.round(run.requestsPerSecond).toLocaleString('en-US')} req/s, ${micros.toFixed(1)} µs CPU a request`);
  // Checked at once: fast 401s or 429s would otherwise pass for speed.
  assertAllSucceeded(side.label, run);
}

/** What every measurement needs from the run. */
export interface MeasureContext {
  settings: BenchSettings;
  pinning: Pinning | null;
  workDir: string;
}

/**
 * Each side measured for `totalSeconds` in all, in whole-second slices of BENCH_COMPARE_SLICE,
 * the last slice taking what is left, the sides taking turns. A burst of other load on the machine (a
 * noisy neighbour of a shared VM, a test run) then lands on every side rather than on whichever
 * was being measured at the time. ABBA: the side that goes second in one slice goes first in
 * the next, so a machine that speeds up or slows down during the run favours none.
 */
export async function measureInTurns(
  sides: TurnSide[],
  request: LoadRequest,
  context: MeasureContext,
  totalSeconds: number,
): Promise<void> {
  const slices = slicesOf(context.settings, totalSeconds);
  for (const [i, seconds] of slices.entries()) {
    const order = i % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) await measure(side, request, context, { slice: i + 1, slices: slices.length, seconds });
  }
}

/** The slices measureInTurns cuts `totalSeconds` (a whole number) into: e.g. 5 s → 2, 2, 1. */
export function slicesOf(settings: BenchSettings, totalSeconds: number): number[] {
  const slices: number[] = [];
  for (let left = totalSeconds; left > 0; left -= settings.compareSliceSeconds) slices.push(Math.min(settings.compareSliceSeconds, left));
  return slices;
}
