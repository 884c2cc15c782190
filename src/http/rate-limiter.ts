import type { FastifyReply } from 'fastify';
import { ENDPOINT_LIMITS_PER_MINUTE, PLAN_LIMITS, type KeyActor } from '../features/accounts/index.js';
import type { Clock } from '../lib/clock.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import { ApiError } from '../errors.js';
import { tightestWindow, type RateDecision, type RateLimitStore, type WindowRule, type WindowState } from '../lib/rate-limit/window.js';

export type EndpointBucket = keyof typeof ENDPOINT_LIMITS_PER_MINUTE;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An endpoint bucket counted on top of the key's own windows. */
    rateLimit?: EndpointBucket;
  }
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Failed authentications allowed per client address in a rolling minute (DECISIONS.md). */
export const AUTH_FAILURES_PER_MINUTE = 100;

/**
 * The minute rolls exactly (1-second buckets). Hour and day are sliding windows counted in
 * 1-minute and 15-minute buckets: they may refuse up to one bucket early, never admit too many.
 */
export function keyRules(actor: KeyActor, bucket: EndpointBucket | undefined, multiplier = 1): WindowRule[] {
  const plan = PLAN_LIMITS[actor.plan];
  const id = actor.key.id;
  const rules: WindowRule[] = [
    { key: `key:${id}:minute`, limit: plan.requestsPerMinute * multiplier, windowMs: MINUTE, bucketMs: SECOND },
    { key: `key:${id}:hour`, limit: plan.requestsPerHour * multiplier, windowMs: HOUR, bucketMs: MINUTE },
    { key: `key:${id}:day`, limit: plan.requestsPerDay * multiplier, windowMs: DAY, bucketMs: 15 * MINUTE },
  ];
  if (bucket) {
    rules.push({ key: `key:${id}:${bucket}`, limit: ENDPOINT_LIMITS_PER_MINUTE[bucket] * multiplier, windowMs: MINUTE, bucketMs: SECOND });
  }
  return rules;
}

const AUTH_FAILURE_WINDOW = { limit: AUTH_FAILURES_PER_MINUTE, windowMs: MINUTE, bucketMs: SECOND };

function authFailureRule(address: string): WindowRule {
  return { key: `authfail:${address}`, ...AUTH_FAILURE_WINDOW };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Applies the spec's limits through one store; the only place that knows about windows. */
export class RateLimiter {
  /** The latest time at which this process counted a failed authentication. */
  private latestAuthFailureMs: number | undefined;

  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
    private readonly settings: { enforceKeyLimits: boolean; multiplier: number },
  ) {}

  /**
   * Counts the request against its key (and endpoint bucket), or throws 429. Sets the headers.
   * Nothing to wait for when key limits are off.
   */
  admit(reply: FastifyReply, actor: KeyActor, bucket: EndpointBucket | undefined): MaybePromise<void> {
    return this.settings.enforceKeyLimits ? this.count(reply, actor, bucket) : undefined;
  }

  private async count(reply: FastifyReply, actor: KeyActor, bucket: EndpointBucket | undefined): Promise<void> {
    const nowMs = this.clock.now().getTime();
    const decision = await this.check(keyRules(actor, bucket, this.settings.multiplier), nowMs, true);
    this.setHeaders(reply, decision.windows, nowMs);
    if (!decision.allowed) {
      const retryAfter = seconds(Math.max(...decision.windows.map((w) => w.retryAfterMs)));
      throw new ApiError('rate_limit_exceeded', `Rate limit exceeded; retry in ${retryAfter} s`, { retryAfter });
    }
  }

  /** Headers without counting, for authenticated requests refused before the limiter (403). */
  async annotate(reply: FastifyReply, actor: KeyActor, bucket: EndpointBucket | undefined): Promise<void> {
    if (!this.settings.enforceKeyLimits) return;
    const nowMs = this.clock.now().getTime();
    const decision = await this.check(keyRules(actor, bucket, this.settings.multiplier), nowMs, false).catch(() => undefined);
    if (decision) this.setHeaders(reply, decision.windows, nowMs);
  }

  /**
   * Seconds until `address` may try authenticating again; 0 when it may now. Every request asks
   * this first: with a store of this process's own and no failure counted here recently enough
   * to be in a window, the answer is 0 at once, without a look-up or a promise.
   */
  authRetryAfter(address: string): MaybePromise<number> {
    const nowMs = this.clock.now().getTime();
    if (!this.store.shared && !this.failureMayCount(nowMs)) return 0;
    return this.check([authFailureRule(address)], nowMs, false).then((decision) =>
      decision.allowed ? 0 : seconds(decision.windows[0]!.retryAfterMs),
    );
  }

  /**
   * Counts a failed authentication from `address` in the same atomic check-and-count as the
   * per-key limits: of any number of concurrent failures, exactly the limit are admitted
   * (answer 401), and the rest are refused (answer 429). Returns the seconds to wait when
   * refused, else 0. Refused failures are not counted, as refused requests never are.
   */
  async admitAuthFailure(address: string): Promise<number> {
    const nowMs = this.clock.now().getTime();
    this.latestAuthFailureMs = Math.max(this.latestAuthFailureMs ?? nowMs, nowMs);
    const decision = await this.check([authFailureRule(address)], nowMs, true);
    return decision.allowed ? 0 : seconds(decision.windows[0]!.retryAfterMs);
  }

  /**
   * Whether a failure counted here may still be in its window: a failure's bucket starts at
   * or before it, and leaves the window a window and a bucket later (window.ts isLive). A clock
   * that stepped back (tests) makes the difference negative, which counts as recent.
   */
  private failureMayCount(nowMs: number): boolean {
    if (this.latestAuthFailureMs === undefined) return false;
    return nowMs - this.latestAuthFailureMs < AUTH_FAILURE_WINDOW.windowMs + AUTH_FAILURE_WINDOW.bucketMs;
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** The store's answer; Redis being unreachable fails the request (503) rather than lift every limit. */
  private check(rules: WindowRule[], nowMs: number, consume: boolean): Promise<RateDecision> {
    return this.store.check(rules, nowMs, consume);
  }

  private setHeaders(reply: FastifyReply, windows: WindowState[], nowMs: number): void {
    const tightest = tightestWindow(windows);
    if (!tightest) return;
    reply
      .header('x-ratelimit-limit', String(tightest.rule.limit))
      .header('x-ratelimit-remaining', String(tightest.remaining))
      .header(
        'x-ratelimit-reset',
        String(Math.ceil((nowMs + (tightest.remaining === 0 ? tightest.retryAfterMs : tightest.resetMs)) / 1000)),
      );
  }
}
