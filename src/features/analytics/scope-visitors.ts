import { createHash } from 'node:crypto';
import { readSnapshot, type Db } from '../../db/database.js';
import type { Scope } from '../accounts/index.js';
import { monthAfter, monthOf, splitByMonths, type Period } from './period.js';
import * as visitorStore from './visitor-sets.repository.js';
import { decodeStoredSet, DistinctVisitors } from './visitor-sets.js';
import { keptSets } from './kept-sets.js';

/**
 * A scope's distinct visitors over UTC days (the overview's unique_views): the sets of its
 * closed months (scope_month_visitors) where built, its closed days' sets (scope_day_visitors)
 * for the other days, and the open rows of days not closed yet.
 */

const setKey = (scope: Scope, kind: 'day' | 'month', first: string) =>
  `${kind}|${scope.environment}|${scope.organizationId ?? scope.userId}|${first}`;

/** Days per read of sets not kept: about a month's, so the text one read fetches dies young (its sets are kept decoded). */
const SET_READ_DAYS = 31;

/** A read of sets not kept: the rows of one month's set, or of some days' sets. */
type SetRead = () => Promise<Array<{ key: string; visitors: string; revision: string }>>;

function setReads(db: Db, scope: Scope, months: string[], days: string[]): SetRead[] {
  const reads: SetRead[] = months.map((month) => async () => {
    const rows = await visitorStore.scopeMonthSet(db, scope, month);
    return rows.map((row) => ({ key: setKey(scope, 'month', month), ...row }));
  });
  for (let i = 0; i < days.length; i += SET_READ_DAYS) {
    const some = days.slice(i, i + SET_READ_DAYS);
    reads.push(async () => {
      const rows = await visitorStore.scopeDaySetsOn(db, scope, some);
      return rows.map((row) => ({ key: setKey(scope, 'day', row.day), visitors: row.visitors, revision: row.revision }));
    });
  }
  return reads;
}

/**
 * Adds the scope's closed sets over the period to `visitors`: each whole UTC month's set where
 * it is built (with `months`), each other day's set; the sets this process keeps at the revision
 * read, the others read (the next read goes out before the last one's sets are added, so the
 * database works meanwhile) and kept. With `months` (a report), their union is kept too, under
 * the revisions of every set in it (stale days stay out: they are not among them): the same
 * period asked again adds one bitmap instead of a year of sets (a busy account's is some 9 ms
 * of the thread). Returns the days whose sets are
 * stale (may still hold a deleted tag's visitors), for their tags' own sets to count instead,
 * and how many days and months have sets.
 */
async function addClosedSets(db: Db, scope: Scope, visitors: DistinctVisitors, period: Period, useMonths: boolean) {
  const { months } = splitByMonths(period);
  const [built, days] = await Promise.all([
    months && useMonths ? visitorStore.builtScopeMonths(db, scope, months) : [],
    visitorStore.scopeDaySetRevisions(db, scope, { from: period.start, to: period.end }),
  ]);
  const builtMonths = new Set(built.map((row) => row.month));
  const sets: Array<{ key: string; revision: string } & ({ month: string } | { day: string })> = built.map(({ month, revision }) => ({
    key: setKey(scope, 'month', month),
    revision,
    month,
  }));
  const staleDays: string[] = [];
  for (const { day, revision, stale } of days) {
    if (builtMonths.has(monthOf(day))) continue;
    if (stale) staleDays.push(day);
    else sets.push({ key: setKey(scope, 'day', day), revision, day });
  }
  const found = built.length + days.length;
  // A union is kept only of sets that all have revisions (a set without one is never kept).
  const unionKey = `union|${scope.environment}|${scope.organizationId ?? scope.userId}|${period.start}|${period.end}`;
  const unionRevision = useMonths && sets.every((set) => set.revision !== '') ? unionRevisionOf(sets) : '';
  const union = keptSets.get(unionKey, unionRevision);
  if (union) {
    visitors.addDecoded(union);
    return { staleDays, found };
  }
  const closed = unionRevision === '' ? visitors : new DistinctVisitors();
  const missingMonths: string[] = [];
  const missingDays: string[] = [];
  for (const set of sets) {
    const kept = keptSets.get(set.key, set.revision);
    if (kept) closed.addDecoded(kept);
    else if ('month' in set) missingMonths.push(set.month);
    else missingDays.push(set.day);
  }
  const reads = setReads(db, scope, missingMonths, missingDays);
  let next = reads[0]?.();
  for (let i = 0; next; i++) {
    const rows = await next;
    next = reads[i + 1]?.();
    next?.catch(() => undefined); // awaited in the next turn; not an unhandled rejection meanwhile
    for (const row of rows) closed.addDecoded(keptSets.keep(row.key, row.revision, decodeStoredSet(row.visitors)));
  }
  if (closed !== visitors) {
    visitors.addDecoded(keptSets.keep(unionKey, unionRevision, closed.toDecoded()));
    closed.release();
  }
  return { staleDays, found };
}

/** One revision for a union of sets: a digest of each set's key and revision, in order. */
function unionRevisionOf(sets: ReadonlyArray<{ key: string; revision: string }>): string {
  const digest = createHash('sha256');
  for (const set of sets) digest.update(`${set.key}@${set.revision};`);
  return digest.digest('base64url');
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
    // Sent first: the database reads the open rows while the kept sets are added.
    const open = visitorStore.openScopeVisitors(db, scope, { from: period.start, to: period.end });
    open.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const visitors = new DistinctVisitors();
    const { staleDays } = await addClosedSets(db, scope, visitors, period, true);
    await addTagSets(db, scope, visitors, staleDays);
    for (const entry of (await open)?.split(',') ?? []) {
      if (entry.startsWith('~')) visitors.addKey(entry.slice(1));
      else visitors.addNumber(Number(entry));
    }
    const size = visitors.size;
    visitors.release();
    return size;
  });
}

/**
 * The set of a closed UTC month (its first day) of the scope: the union of its days' sets, a
 * stale day's from its tags' own sets, as the reads above count them; undefined when the month
 * has no day sets (left).
 */
export async function buildScopeMonthSet(db: Db, scope: Scope, month: string): Promise<string | undefined> {
  const visitors = new DistinctVisitors();
  const { staleDays, found } = await addClosedSets(db, scope, visitors, { start: month, end: monthAfter(month) }, false);
  if (found === 0) return undefined;
  await addTagSets(db, scope, visitors, staleDays);
  const monthSet = visitors.toMonthSet();
  visitors.release();
  return monthSet;
}
