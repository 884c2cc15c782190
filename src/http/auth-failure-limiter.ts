/**
 * Counts failed authentications per client address in a rolling minute, so API keys cannot be
 * guessed at speed (DECISIONS.md: 100 a minute, then 429).
 */
export class AuthFailureLimiter {
  private readonly failures = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly limit = 100,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds until the address may try again, or 0 when it is not blocked. */
  retryAfterSeconds(address: string, nowMs: number): number {
    const times = this.recent(address, nowMs);
    if (times.length < this.limit) return 0;
    return Math.max(1, Math.ceil((times[times.length - this.limit]! + this.windowMs - nowMs) / 1000));
  }

  recordFailure(address: string, nowMs: number): void {
    const times = this.recent(address, nowMs);
    times.push(nowMs);
    // Only the newest `limit` failures matter for the decision; older ones are dropped.
    if (times.length > this.limit) times.splice(0, times.length - this.limit);
    this.failures.set(address, times);
    this.sweep(nowMs);
  }

  private recent(address: string, nowMs: number): number[] {
    const times = this.failures.get(address);
    if (!times) return [];
    const cutoff = nowMs - this.windowMs;
    while (times.length > 0 && times[0]! <= cutoff) times.shift();
    if (times.length === 0) this.failures.delete(address);
    return times;
  }

  // Forget addresses that stopped failing, so memory stays bounded by the last minute's traffic.
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < this.windowMs) return;
    this.lastSweep = nowMs;
    for (const address of [...this.failures.keys()]) this.recent(address, nowMs);
  }
}
