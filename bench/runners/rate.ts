import { createHistogram, performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { progress } from '../lib/measure.js';
import { verdict, type RateResult } from '../lib/report.js';
import type { RateScenario } from '../lib/scenario.js';
import type { BenchSettings } from '../lib/settings.js';

interface Timed {
  operations: number;
  seconds: number;
  latencyUs: ReturnType<typeof createHistogram>;
}

/**
 * Repeats `operation` back to back for `seconds`. The loop yields to the event loop every
 * 50 ms: the operation may complete synchronously, and Ctrl-C must still get through.
 */
async function repeat(operation: () => Promise<unknown>, seconds: number): Promise<Timed> {
  const latencyUs = createHistogram();
  const start = performance.now();
  const end = start + seconds * 1000;
  let operations = 0;
  let lastYield = start;
  let now = start;
  while (now < end) {
    const before = now;
    await operation();
    now = performance.now();
    latencyUs.record(Math.max(1, Math.round((now - before) * 1000)));
    operations++;
    if (now - lastYield > 50) {
      await yieldToEventLoop();
      now = lastYield = performance.now();
    }
  }
  return { operations, seconds: (performance.now() - start) / 1000, latencyUs };
}

/** An operation in this process, no server: operations per second and the time of each. */
export async function runRate(scenario: RateScenario, settings: BenchSettings): Promise<RateResult> {
  const operation = await scenario.prepare();
  if (settings.warmupSeconds > 0) {
    progress(`  warming up ${settings.warmupSeconds} s`);
    await repeat(operation, settings.warmupSeconds);
  }
  const seconds = scenario.seconds(settings);
  progress(`  measuring ${seconds} s`);
  const timed = await repeat(operation, seconds);
  const operationsPerSecond = timed.operations / timed.seconds;
  progress(`  ${Math.round(operationsPerSecond).toLocaleString('en-US')} ${scenario.unit}/s`);
  return {
    kind: 'rate',
    name: scenario.name,
    description: scenario.description,
    unit: scenario.unit,
    operationsPerSecond,
    operations: timed.operations,
    seconds: timed.seconds,
    latencyP50Ms: timed.latencyUs.percentile(50) / 1000,
    latencyP99Ms: timed.latencyUs.percentile(99) / 1000,
    latencyMeanMs: timed.latencyUs.mean / 1000,
    pass: null,
    verdict: verdict(null),
  };
}
