/**
 * Rolling windows counted in small buckets. A window of `windowMs` with buckets of `bucketMs`
 * counts every bucket that overlaps the last `windowMs`, the oldest one in full. That errs on
 * the safe side: in no interval of `windowMs` can more than `limit` requests be admitted, and
 * the time until a bucket leaves the window is known exactly, so Retry-After is honest.
 */
export interface WindowRule {
  /** Store key, e.g. `key:key_01…:minute`. */
  key: string;
  limit: number;
  windowMs: number;
  bucketMs: number;
}

/** A window's live buckets, oldest first: their start times (ms) and request counts. */
export interface Buckets {
  starts: readonly number[];
  counts: readonly number[];
}

export interface WindowState {
  rule: WindowRule;
  count: number;
  remaining: number;
  /** Milliseconds until there is room again (0 when there is room now). */
  retryAfterMs: number;
  /** Milliseconds until the oldest counted bucket leaves the window (the window's next "reset"). */
  resetMs: number;
}

export interface RateDecision {
  allowed: boolean;
  windows: WindowState[];
}

/** Whether a bucket starting at `start` still counts at `nowMs`. */
export function isLive(rule: WindowRule, start: number, nowMs: number): boolean {
  return start + rule.bucketMs > nowMs - rule.windowMs;
}

export function bucketStart(rule: WindowRule, nowMs: number): number {
  return Math.floor(nowMs / rule.bucketMs) * rule.bucketMs;
}

/**
 * Describes a window from its live buckets (after any request this check admitted). `count`
 * is their total, which the memory store keeps running so the common path stays O(1).
 */
export function describeWindow(rule: WindowRule, live: Buckets, count: number, nowMs: number): WindowState {
  const leavesAt = (start: number) => start + rule.bucketMs + rule.windowMs - nowMs;
  let retryAfterMs = 0;
  if (count >= rule.limit) {
    // Room for one more once enough of the oldest requests have left the window.
    let freed = 0;
    for (let i = 0; i < live.starts.length; i++) {
      freed += live.counts[i]!;
      if (count - freed < rule.limit) {
        retryAfterMs = leavesAt(live.starts[i]!);
        break;
      }
    }
  }
  const resetMs = live.starts.length > 0 ? leavesAt(live.starts[0]!) : rule.windowMs;
  return { rule, count, remaining: Math.max(0, rule.limit - count), retryAfterMs, resetMs };
}

/** The window closest to running out: the fewest requests left, then the latest reset. */
export function tightestWindow(windows: WindowState[]): WindowState | undefined {
  return windows.reduce<WindowState | undefined>((best, w) => {
    if (!best) return w;
    if (w.remaining !== best.remaining) return w.remaining < best.remaining ? w : best;
    return w.resetMs > best.resetMs ? w : best;
  }, undefined);
}

/**
 * A store checks every rule and, only when all have room and `consume` is set, counts the
 * request in each — atomically, so concurrent requests (or processes) admit exactly the limit.
 */
export interface RateLimitStore {
  /** False when only this process counts in the store (memory), true when processes share it (Redis). */
  readonly shared: boolean;
  check(rules: WindowRule[], nowMs: number, consume: boolean): Promise<RateDecision>;
  close(): Promise<void>;
}
