import { bucketStart, describeWindow, isLive, type RateDecision, type RateLimitStore, type WindowRule } from './window.js';

interface Counter {
  rule: WindowRule;
  buckets: Map<number, number>;
}

const SWEEP_INTERVAL_MS = 60_000;

/** Counters in this process: for the embedded single-process mode. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, Counter>();
  private lastSweep = 0;

  async check(rules: WindowRule[], nowMs: number, consume: boolean): Promise<RateDecision> {
    // Synchronous from here on: no other request can interleave between the check and the count.
    const counters = rules.map((rule) => this.counter(rule, nowMs));
    const allowed = counters.every(({ rule, buckets }) => total(buckets) < rule.limit);
    if (allowed && consume) {
      for (const { rule, buckets } of counters) {
        const start = bucketStart(rule, nowMs);
        buckets.set(start, (buckets.get(start) ?? 0) + 1);
      }
    }
    this.sweep(nowMs);
    return { allowed, windows: counters.map(({ rule, buckets }) => describeWindow(rule, [...buckets.entries()], nowMs)) };
  }

  async close(): Promise<void> {
    this.counters.clear();
  }

  private counter(rule: WindowRule, nowMs: number): Counter {
    let counter = this.counters.get(rule.key);
    if (!counter) {
      counter = { rule, buckets: new Map() };
      this.counters.set(rule.key, counter);
    }
    counter.rule = rule;
    for (const start of counter.buckets.keys()) if (!isLive(rule, start, nowMs)) counter.buckets.delete(start);
    return counter;
  }

  // Forget counters whose buckets have all left their window, so memory follows recent traffic.
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = nowMs;
    for (const [key, { rule, buckets }] of this.counters) {
      if (![...buckets.keys()].some((start) => isLive(rule, start, nowMs))) this.counters.delete(key);
    }
  }
}

function total(buckets: Map<number, number>): number {
  let sum = 0;
  for (const n of buckets.values()) sum += n;
  return sum;
}
