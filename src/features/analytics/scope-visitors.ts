import { readSnapshot, type Db } from '../../db/database.js';
import type { Scope } from '../accounts/index.js';
import { monthAfter, splitByMonths, type Period } from './period.js';
import * as visitorStore from './visitor-sets.repository.js';
import { DistinctVisitors } from './visitor-sets.js';

/**
 * A scope's distinct visitors over UTC days (the overview's unique_views): the sets of its
 * closed months (scope_month_visitors) where built, its closed days' sets (scope_day_visitors)
 * for the other days, and the open rows of days not closed yet.
 */

/** A read of sets: one month's set, or the day sets of days [from, to). */
type SetRead = { month: string } | { days: { from: string; to: string } };

/** Days per read of day sets: about a month. */
const SET_RANGE_DAYS = 31;

/** [from, to) in consecutive reads of SET_RANGE_DAYS days; none when from is not before to. */
function dayReads(days: { from: string; to: string }): SetRead[] {
  const reads = [];
  for (let from = days.from; from < days.to;) {
    const next = new Date(Date.parse(`${from}T00:00:00.000Z`) + SET_RANGE_DAYS * 86_400_000).toISOString().slice(0, 10);
    const to = next < days.to ? next : days.to;
    reads.push({ days: { from, to } });
    from = to;
  }
  return reads;
}

/** The period's whole UTC months whose sets are built, one read each, and its other days' reads. */
async function setReads(db: Db, scope: Scope, period: Period): Promise<SetRead[]> {
  const { months } = splitByMonths(period);
  const built = months ? await visitorStore.builtScopeMonths(db, scope, months) : [];
  const reads: SetRead[] = [];
  let from = period.start;
  for (const { month } of built) {
    reads.push(...dayReads({ from, to: month }), { month });
    from = monthAfter(month);
  }
  reads.push(...dayReads({ from, to: period.end }));
  return reads;
}

/** Sets read: a month's (day null), or days' with their stale marks. */
type SetRows = Array<{ day: string | null; visitors: string; stale: number }>;

function readSets(db: Db, scope: Scope, read: SetRead): Promise<SetRows> {
  if ('days' in read) return visitorStore.scopeDaySets(db, scope, read.days);
  return visitorStore.scopeMonthSet(db, scope, read.month).then((rows) => rows.map((row) => ({ day: null, ...row, stale: 0 })));
}

/**
 * Adds sets read to `visitors`, but for the days whose sets are stale (may still hold a deleted
 * tag's visitors), which it returns: their tags' own sets count instead.
 */
function addSets(visitors: DistinctVisitors, rows: SetRows): string[] {
  const staleDays: string[] = [];
  for (const row of rows) {
    if (row.day === null) visitors.addMonthSet(row.visitors);
    else if (row.stale) staleDays.push(row.day);
    else visitors.addSet(row.visitors);
  }
  return staleDays;
}

/** Adds the sets of the scope's tags on the given days (those whose scope sets are stale). */
async function addTagSets(db: Db, scope: Scope, visitors: DistinctVisitors, days: string[]): Promise<void> {
  if (days.length === 0) return;
  for (const row of await visitorStore.tagSetsOfScopeDays(db, scope, days)) visitors.addSet(row.visitors);
}

/**
 * Distinct visitors of the scope's tags over the period. Read on one snapshot, as the sealing
 * moves a day's visitors from its open rows into the sets and builds the month sets.
 */
export function scopeVisitors(db: Db, scope: Scope, period: Period): Promise<number> {
  return readSnapshot(db, async (db) => {
    // The sets a month at a time: each month is dropped once added, while still in the young
    // generation; a year's sets read at once outlive it, and the old generation's collections
    // slow the year overviews. The next month's query goes out before this month is added, and
    // the open rows' query after the first month's, so the database works while the sets are
    // added.
    const reads = await setReads(db, scope, period);
    const setsOf = (i: number) => {
      const rows = readSets(db, scope, reads[i]!);
      rows.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
      return rows;
    };
    let next = reads.length > 0 ? setsOf(0) : undefined;
    const openRows = visitorStore.openScopeVisitorDays(db, scope, { from: period.start, to: period.end });
    openRows.catch(() => undefined);
    const visitors = new DistinctVisitors();
    const staleDays: string[] = [];
    for (let i = 0; i < reads.length; i++) {
      const rows = await next!;
      if (i + 1 < reads.length) next = setsOf(i + 1);
      staleDays.push(...addSets(visitors, rows));
    }
    await addTagSets(db, scope, visitors, staleDays);
    for (const row of await openRows) {
      if (row.number === null) visitors.addKey(row.visitor);
      else visitors.addNumber(Number(row.number));
    }
    return visitors.size;
  });
}

/**
 * The set of a closed UTC month (its first day) of the scope: the union of its days' sets, a
 * stale day's from its tags' own sets, as the reads above count them; undefined when the month
 * has no day sets (left).
 */
export async function buildScopeMonthSet(db: Db, scope: Scope, month: string): Promise<string | undefined> {
  const rows = await visitorStore.scopeDaySets(db, scope, { from: month, to: monthAfter(month) });
  if (rows.length === 0) return undefined;
  const visitors = new DistinctVisitors();
  const staleDays = addSets(visitors, rows);
  await addTagSets(db, scope, visitors, staleDays);
  return visitors.toMonthSet();
}
