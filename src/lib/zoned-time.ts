/**
 * Wall-clock times in a named (IANA) time zone, such as a datetime-local input holds, and the
 * instants they name. The zone's rules (daylight saving time included) are the runtime's own
 * time zone data, through Intl.
 */

/** What a datetime-local input sends: a date and a time to the minute (seconds optional), no offset. */
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether the runtime knows `zone` (Europe/Berlin, UTC). */
export function isTimeZone(zone: string): boolean {
  return canonicalTimeZone(zone) !== undefined;
}

/** The runtime's own name of `zone` (`europe/berlin` → `Europe/Berlin`); undefined when it knows no such zone. */
export function canonicalTimeZone(zone: string): string | undefined {
  try {
    // Not the cached formatter: a name from a request may be any of a zone's spellings.
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** How far `zone`'s clocks are ahead of UTC at `instant` (ms), in ms. */
export function offsetAt(zone: string, instant: number): number {
  return wallMs(zone, instant) - instant;
}

/** The wall-clock time in `zone` at `instant` (ms), as if it were UTC, in ms. */
function wallMs(zone: string, instant: number): number {
  const parts = Object.fromEntries(
    formatterOf(zone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  return Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
}

const DAY_MS = 86_400_000;

/**
 * The instant a wall-clock time `value` (YYYY-MM-DDTHH:mm[:ss]) names in `zone`; undefined when
 * it is not such a time. A time of the hour clocks are put back, which happens twice, is the
 * first; one of the hour they skip, which never happens, is read with the offset before the
 * change (Berlin's 02:30 on the last Sunday of March is 03:30).
 */
export function instantOfWallTime(value: string, zone: string): Date | undefined {
  const match = WALL_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second);
  // Out-of-range fields (February 30th, 25 o'clock) roll over in Date.UTC: such a time is not one.
  if (new Date(wall).toISOString().slice(0, 19) !== `${value}:00`.slice(0, 19)) return undefined;
  // A zone changes its offset at most once in a day or so: the wall time is read with the offset
  // a day before and the one a day after, and the first reading that gives it back is the instant.
  const readings = [wall - offsetAt(zone, wall - DAY_MS), wall - offsetAt(zone, wall + DAY_MS)].sort((a, b) => a - b);
  const instant = readings.find((reading) => wallMs(zone, reading) === wall) ?? wall - offsetAt(zone, wall - DAY_MS);
  return new Date(instant);
}

/** The wall-clock time in `zone` at `instant`, to the minute, as a datetime-local input shows it. */
export function wallTimeOf(instant: Date | string, zone: string): string {
  return new Date(wallMs(zone, new Date(instant).getTime())).toISOString().slice(0, 16);
}
