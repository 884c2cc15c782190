import type { Db } from '../../db/database.js';
import { daysOutsideMonths, lastDayOfMonth, monthAfter, monthsIn, splitByMonths, type Period } from './period.js';
import * as visitorStore from './visitor-sets.repository.js';
import { DistinctVisitors } from './visitor-sets.js';

/**
 * A tag's closed visitor sets over UTC days (a tag report's unique visitors): the sets of its
 * closed months (tag_month_visitors) where built, its closed days' sets (tag_day_visitors) for
 * the other days. A busy tag's year is then about 14 rows instead of 365.
 */

/**
 * The tag's closed sets over the period, each with the day it starts on: a whole UTC month's set
 * where it is built and, with `bucketOfDay`, all of its days count in one bucket; each other
 * day's set. Read in the caller's snapshot: the seal job builds month sets, and marks them stale
 * as their days' sets change.
 */
export async function closedTagSets(
  db: Db,
  tagId: string,
  period: Period,
  bucketOfDay?: (day: string) => string,
): Promise<Array<{ day: string; visitors: string }>> {
  const { months } = splitByMonths(period);
  const whole = months ? monthsIn(months) : [];
  const candidates = bucketOfDay ? whole.filter((month) => bucketOfDay(month) === bucketOfDay(lastDayOfMonth(month))) : whole;
  const built = candidates.length > 0 ? await visitorStore.builtTagMonthSets(db, tagId, candidates) : [];
  built.sort((a, b) => (a.month < b.month ? -1 : 1));
  const outside = daysOutsideMonths(
    period,
    built.map((row) => row.month),
  );
  const days = await Promise.all(outside.map((range) => visitorStore.visitorSets(db, tagId, range)));
  return [...built.map((row) => ({ day: row.month, visitors: row.visitors })), ...days.flat()];
}

/** The set of a closed UTC month (its first day) of the tag: the union of its days' sets; undefined when it has none (left). */
export async function buildTagMonthSet(db: Db, key: visitorStore.TagMonth): Promise<string | undefined> {
  const sets = await visitorStore.visitorSets(db, key.tag_id, { from: key.month, to: monthAfter(key.month) });
  if (sets.length === 0) return undefined;
  const visitors = new DistinctVisitors();
  for (const row of sets) visitors.addSet(row.visitors);
  return visitors.toMonthSet();
}
