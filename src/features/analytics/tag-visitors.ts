import type { Db } from '../../db/database.js';
import { keptSets } from './kept-sets.js';
import { daysOutsideMonths, lastDayOfMonth, monthAfter, monthsIn, splitByMonths, type Period } from './period.js';
import * as visitorStore from './visitor-sets.repository.js';
import { decodeStoredSet, DistinctVisitors, type DecodedSet } from './visitor-sets.js';

/**
 * A tag's closed visitor sets over UTC days (a tag report's unique visitors): the sets of its
 * closed months (tag_month_visitors) where built, its closed days' sets (tag_day_visitors) for
 * the other days.
 */

const monthKey = (tagId: string, month: string) => `tag-month|${tagId}|${month}`;

/**
 * The tag's closed sets over the period, decoded, each with the day it starts on: a whole UTC
 * month's set where it is built and, with `bucketOfDay`, all of its days count in one bucket;
 * each other day's set. Month sets this process keeps at the revision read are not fetched
 * (kept-sets.ts): a busy tag's year of them is 2 MB of text to fetch and decode. Read in the
 * caller's snapshot: the seal job builds month sets, and marks them stale as their days change.
 */
export async function closedTagSets(
  db: Db,
  tagId: string,
  period: Period,
  bucketOfDay?: (day: string) => string,
): Promise<Array<{ day: string; set: DecodedSet }>> {
  const { months } = splitByMonths(period);
  const whole = months ? monthsIn(months) : [];
  const candidates = bucketOfDay ? whole.filter((month) => bucketOfDay(month) === bucketOfDay(lastDayOfMonth(month))) : whole;
  const built = candidates.length > 0 ? await visitorStore.builtTagMonths(db, tagId, candidates) : [];
  const sets: Array<{ day: string; set: DecodedSet }> = [];
  const missing: string[] = [];
  for (const { month, revision } of built) {
    const kept = keptSets.get(monthKey(tagId, month), revision);
    if (kept) sets.push({ day: month, set: kept });
    else missing.push(month);
  }
  const outside = daysOutsideMonths(
    period,
    built.map((row) => row.month),
  );
  const monthRows = missing.length > 0 ? visitorStore.tagMonthSets(db, tagId, missing) : Promise.resolve([]);
  const dayRows = Promise.all(outside.map((range) => visitorStore.visitorSets(db, tagId, range)));
  dayRows.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  for (const row of await monthRows)
    sets.push({ day: row.month, set: keptSets.keep(monthKey(tagId, row.month), row.revision, decodeStoredSet(row.visitors)) });
  for (const row of (await dayRows).flat()) sets.push({ day: row.day, set: decodeStoredSet(row.visitors) });
  return sets;
}

/** The set of a closed UTC month (its first day) of the tag: the union of its days' sets; undefined when it has none (left). */
export async function buildTagMonthSet(db: Db, key: visitorStore.TagMonth): Promise<string | undefined> {
  const sets = await visitorStore.visitorSets(db, key.tag_id, { from: key.month, to: monthAfter(key.month) });
  if (sets.length === 0) return undefined;
  const visitors = new DistinctVisitors();
  for (const row of sets) visitors.addSet(row.visitors);
  const monthSet = visitors.toMonthSet();
  visitors.release();
  return monthSet;
}
