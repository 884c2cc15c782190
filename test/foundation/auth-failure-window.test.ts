import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { MemoryRateLimitStore } from '../../src/lib/rate-limit/memory-store.js';
import type { RateLimitStore } from '../../src/lib/rate-limit/window.js';

/**
 * With the memory store the limiter skips the failed-authentication look-up while no failure
 * counted in this process can still be in its window. It must answer exactly as the look-up
 * would, at every moment, whichever way the clock moves.
 */
describe('failed-authentication check without a look-up', () => {
  const settings = { enforceKeyLimits: false, multiplier: 1 };

  function limiters() {
    let nowMs = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
    const clock = { now: () => new Date(nowMs) };
    const store = new MemoryRateLimitStore();
    // The same counters, seen through a store that claims to be shared: always looked up.
    const lookedUp: RateLimitStore = { shared: true, check: (...args) => store.check(...args), close: () => store.close() };
    return {
      fast: new RateLimiter(store, clock, settings),
      reference: new RateLimiter(lookedUp, clock, settings),
      setTime: (ms: number) => (nowMs = ms),
      now: () => nowMs,
    };
  }

  async function expectSameAnswers(l: ReturnType<typeof limiters>, address: string) {
    expect(await l.fast.authRetryAfter(address)).toBe(await l.reference.authRetryAfter(address));
  }

  it('answers 0 before any failure', async () => {
    const l = limiters();
    expect(await l.fast.authRetryAfter('192.0.2.1')).toBe(0);
  });

  it('blocks after 100 failures and agrees with the look-up through the whole window', async () => {
    const l = limiters();
    const start = l.now();
    for (let i = 0; i < 100; i++) await l.fast.admitAuthFailure('192.0.2.1');
    expect(await l.fast.authRetryAfter('192.0.2.1')).toBeGreaterThan(0);
    for (let offset = 0; offset <= 63_000; offset += 250) {
      l.setTime(start + offset);
      await expectSameAnswers(l, '192.0.2.1');
      await expectSameAnswers(l, '192.0.2.2');
    }
    expect(await l.fast.authRetryAfter('192.0.2.1')).toBe(0);
  });

  it('agrees with the look-up when the clock steps back between failures', async () => {
    const l = limiters();
    const start = l.now();
    for (let i = 0; i < 100; i++) await l.fast.admitAuthFailure('192.0.2.1');
    // Counted earlier than the failures before it: the block they caused must still hold.
    l.setTime(start - 30_000);
    await l.fast.admitAuthFailure('192.0.2.1');
    for (let offset = -30_000; offset <= 63_000; offset += 250) {
      l.setTime(start + offset);
      await expectSameAnswers(l, '192.0.2.1');
    }
  });
});
