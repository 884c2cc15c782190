/** Time source; injected so tests can move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}
