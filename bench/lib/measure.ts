import { assertAllSucceeded, generateLoad, type LoadRequest, type Measurement } from './load.js';
import type { BenchSettings } from './settings.js';

export const progress = (message: string) => process.stderr.write(`${message}\n`);

/** Where a measurement stands among its siblings, and how long it lasts. */
export interface MeasurePlan {
  round: number;
  rounds: number;
  seconds: number;
}

/**
 * One measured run into `into`, after a discarded warm-up on the first round, so the JIT and
 * the service's caches are warm before anything counts.
 */
export async function measure(label: string, baseUrl: string, request: LoadRequest, settings: BenchSettings, plan: MeasurePlan, into: Measurement): Promise<void> {
  const options = { connections: settings.connections };
  const of = plan.rounds > 1 ? ` (round ${plan.round}/${plan.rounds})` : '';
  if (plan.round === 1 && settings.warmupSeconds > 0) {
    progress(`  ${label}: warming up ${settings.warmupSeconds} s`);
    await generateLoad(baseUrl, request, { ...options, durationSeconds: settings.warmupSeconds });
  }
  progress(`  ${label}: measuring ${plan.seconds} s${of}`);
  const run = await generateLoad(baseUrl, request, { ...options, durationSeconds: plan.seconds }, into);
  progress(`  ${label}: ${Math.round(run.requestsPerSecond).toLocaleString('en-US')} req/s`);
  // Checked at once: fast 401s or 429s would otherwise pass for speed.
  assertAllSucceeded(label, run);
}
