import type { Clock } from '../../src/lib/clock.js';

/** Real time plus an offset the test can move forward; no test sleeps to let time pass. */
export class TestClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  now(): Date {
    return new Date((this.frozenAt ?? Date.now()) + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Stops time at `at` (default: now) until advanced. */
  freeze(at: Date = this.now()): void {
    this.frozenAt = at.getTime();
    this.offsetMs = 0;
  }
}
