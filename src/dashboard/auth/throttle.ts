import type { Clock } from '../../lib/clock.js';
import type { RateLimitStore, WindowRule } from '../../lib/rate-limit/window.js';

/** Failed sign-ins allowed in a rolling minute, per client address and per account. */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;

const MINUTE = 60_000;

export const TOO_MANY = (seconds: number) => `Too many attempts, try again in ${seconds} seconds.`;

function rules(address: string, email: string): WindowRule[] {
  const window = { limit: SIGN_IN_FAILURES_PER_MINUTE, windowMs: MINUTE, bucketMs: 1000 };
  return [
    { key: `signin:ip:${address}`, ...window },
    // Unknown emails are counted like real ones, so the limit does not tell which exist.
    { key: `signin:email:${email.trim().toLowerCase()}`, ...window },
  ];
}

/**
 * Throttles password guessing in the dashboard, through the API's rate-limit store (process
 * memory, or Redis shared by every instance). Checked before the password is, counted after a
 * failure.
 */
export class SignInThrottle {
  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
  ) {}

  /** Seconds until another attempt for this address and account is allowed; 0 when it is now. */
  async retryAfter(address: string, email: string): Promise<number> {
    const decision = await this.store.check(rules(address, email), this.clock.now().getTime(), false);
    if (decision.allowed) return 0;
    return Math.max(1, Math.ceil(Math.max(...decision.windows.map((w) => w.retryAfterMs)) / 1000));
  }

  async recordFailure(address: string, email: string): Promise<void> {
    await this.store.check(rules(address, email), this.clock.now().getTime(), true);
  }
}
