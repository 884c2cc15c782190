import { bucketStart, describeWindow, isLive, type Buckets, type RateDecision, type RateLimitStore, type WindowRule } from './window.js';

/** One window's buckets, oldest first, with their running total (this is the hot path). */
interface Counter {
  rule: WindowRule;
  starts: number[];
  counts: number[];
  total: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/** Counters in this process: for the embedded single-process mode. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly shared = false;
  private readonly counters = new Map<string, Counter>();
  private lastSweep = 0;

  async check(rules: WindowRule[], nowMs: number, consume: boolean): Promise<RateDecision> {
    // Synchronous from here on: no other request can interleave between the check and the count.
    const counters = rules.map((rule) => this.counter(rule, nowMs));
    const allowed = counters.every((c, i) => (c?.total ?? 0) < rules[i]!.limit);
    if (allowed && consume) {
      rules.forEach((rule, i) => {
        counters[i] = this.count(counters[i] ?? this.create(rule), bucketStart(rule, nowMs));
      });
    }
    this.sweep(nowMs);
    return {
      allowed,
      windows: rules.map((rule, i) => describeWindow(rule, counters[i] ?? NO_BUCKETS, counters[i]?.total ?? 0, nowMs)),
    };
  }

  async close(): Promise<void> {
    this.counters.clear();
  }

  /** The rule's counter with expired buckets dropped; undefined when it has none (a peek creates nothing). */
  private counter(rule: WindowRule, nowMs: number): Counter | undefined {
    const counter = this.counters.get(rule.key);
    if (!counter) return undefined;
    counter.rule = rule;
    while (counter.starts.length > 0 && !isLive(rule, counter.starts[0]!, nowMs)) {
      counter.starts.shift();
      counter.total -= counter.counts.shift()!;
    }
    return counter;
  }

  private create(rule: WindowRule): Counter {
    const counter: Counter = { rule, starts: [], counts: [], total: 0 };
    this.counters.set(rule.key, counter);
    return counter;
  }

  private count(counter: Counter, start: number): Counter {
    const last = counter.starts.length - 1;
    if (last >= 0 && counter.starts[last] === start) counter.counts[last]! += 1;
    else {
      // Time only moves forward in production; an injected clock may step back, so keep order.
      let at = counter.starts.length;
      while (at > 0 && counter.starts[at - 1]! > start) at--;
      if (counter.starts[at] === start) counter.counts[at]! += 1;
      else {
        counter.starts.splice(at, 0, start);
        counter.counts.splice(at, 0, 1);
      }
    }
    counter.total += 1;
    return counter;
  }

  // Forget counters whose buckets have all left their window, so memory follows recent traffic.
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = nowMs;
    for (const [key, counter] of this.counters) {
      const newest = counter.starts.at(-1);
      if (newest === undefined || !isLive(counter.rule, newest, nowMs)) this.counters.delete(key);
    }
  }
}

const NO_BUCKETS: Buckets = { starts: [], counts: [] };
