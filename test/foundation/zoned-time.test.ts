import { describe, expect, it } from 'vitest';
import { instantOfWallTime, isTimeZone, wallTimeOf } from '../../src/lib/zoned-time.js';

/** Wall-clock times of a datetime-local input in a named zone, and back, across daylight saving time. */
describe('zoned wall-clock times', () => {
  const berlin = 'Europe/Berlin';
  const instant = (value: string, zone: string) => instantOfWallTime(value, zone)?.toISOString();

  it('reads a wall time with the offset the zone has on that date', () => {
    expect(instant('2026-07-01T09:00', berlin)).toBe('2026-07-01T07:00:00.000Z');
    expect(instant('2026-01-15T09:00', berlin)).toBe('2026-01-15T08:00:00.000Z');
    expect(instant('2026-07-01T09:00', 'America/New_York')).toBe('2026-07-01T13:00:00.000Z');
    expect(instant('2026-07-01T09:00', 'Asia/Kolkata')).toBe('2026-07-01T03:30:00.000Z');
    expect(instant('2026-07-01T09:00', 'UTC')).toBe('2026-07-01T09:00:00.000Z');
    expect(instant('2026-07-01T09:00:30', berlin)).toBe('2026-07-01T07:00:30.000Z');
  });

  it('takes the first of a repeated hour, and reads a skipped one with the offset before the change', () => {
    expect(instant('2026-10-25T02:30', berlin)).toBe('2026-10-25T00:30:00.000Z');
    expect(instant('2026-10-25T03:30', berlin)).toBe('2026-10-25T02:30:00.000Z');
    expect(instant('2026-03-29T02:30', berlin)).toBe('2026-03-29T01:30:00.000Z');
    expect(wallTimeOf('2026-03-29T01:30:00.000Z', berlin)).toBe('2026-03-29T03:30');
  });

  it('refuses what is not a wall time', () => {
    for (const value of ['', '2026-02-30T10:00', '2026-07-01T24:00', '2026-07-01 09:00', '2026-07-01T09:00Z', 'tomorrow']) {
      expect(instantOfWallTime(value, berlin), value).toBeUndefined();
    }
  });

  it('shows an instant as the zone’s wall time, to the minute', () => {
    expect(wallTimeOf('2026-07-01T07:00:59.000Z', berlin)).toBe('2026-07-01T09:00');
    expect(wallTimeOf(new Date('2026-12-31T23:30:00Z'), berlin)).toBe('2027-01-01T00:30');
    expect(isTimeZone(berlin)).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
  });
});
