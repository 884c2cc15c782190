import type { Db } from '../../db/database.js';
import * as repo from './visitor-sets.repository.js';
import { decodeVisitorSet, unionVisitorSet } from './visitor-sets.js';
import { rollUpViews } from './view-rollup.js';
import { hourOf, monthOf, toDay } from './period.js';
import { buildScopeMonthSet } from './scope-visitors.js';
import { buildTagMonthSet } from './tag-visitors.js';
import { getOrCreate } from '../../lib/maps.js';
import { transaction } from '../../db/transaction.js';
import { setImmediate } from 'node:timers/promises';

/**
 * Views are stamped when they arrive and committed within moments, so a day is closed a little
 * after it ends, and an hour's visitor rows are dropped once no view can still land in it.
 */
export const DAY_CLOSE_GRACE_MS = 10 * 60_000;
export const HOUR_ROWS_KEPT_MS = 2 * 3_600_000;
const TAG_DAYS_PER_PASS = 200;
/** Month sets built per pass: each reads up to 31 day sets (a few milliseconds of the thread for a scope's). */
const SCOPE_MONTHS_PER_PASS = 24;
/** A tag's month holds a fraction of its scope's visitors: 500 a run (a run a minute) build a few thousand tags' months within minutes of the month's end. */
const TAG_MONTHS_PER_PASS = 500;

/**
 * Closes the tag-days before `now - grace`: their visitor rows become a numbered visitor set
 * (merged with one sealed before, if a late view reopened the day), the day's unique count is
 * set from it, the rows go, and the scope's set of the day takes their visitors; the month sets
 * of the tag and the scope are marked to be built again (buildStaleMonths). The tag-days of
 * one scope and day close together, in one transaction: the scope's set is rewritten once for
 * them, not once per tag. Each tag's rollup row is locked first, in tag order, then the scope's
 * set, so reports always see a day's visitors in one of the two places. Returns how many
 * tag-days were closed.
 */
export async function closeVisitorDays(db: Db, nowMs: number): Promise<number> {
  const before = toDay(nowMs - DAY_CLOSE_GRACE_MS);
  // Pending views add visitor rows: roll them up first, so the days close with them.
  await rollUpViews(db);
  let closed = 0;
  for (;;) {
    const open = await repo.openTagDaysBefore(db, before, TAG_DAYS_PER_PASS);
    // In tag order within each group: the order every sealer locks the tags' rows in.
    const groups = new Map<string, { day: string; scopeDay: repo.ScopeDay | undefined; tagIds: string[] }>();
    for (const row of open) {
      const scopeDay = row.environment && row.scope_id ? { environment: row.environment, scope_id: row.scope_id, day: row.day } : undefined;
      getOrCreate(groups, `${row.day}|${row.environment}|${row.scope_id}`, () => ({ day: row.day, scopeDay, tagIds: [] })).tagIds.push(
        row.tag_id,
      );
    }
    for (const group of groups.values()) closed += await transaction(db, (trx) => closeScopeDay(trx, group));
    if (open.length < TAG_DAYS_PER_PASS) break;
  }
  await repo.deleteVisitorHoursBefore(db, hourOf(new Date(nowMs - HOUR_ROWS_KEPT_MS).toISOString()));
  await rebuildStaleScopeDays(db, TAG_DAYS_PER_PASS);
  await buildStaleMonths(db, monthOf(before), SCOPE_MONTHS_PER_PASS, SCOPE_MONTHS);
  await buildStaleMonths(db, monthOf(before), TAG_MONTHS_PER_PASS, TAG_MONTHS);
  return closed;
}

/**
 * Closes the given tag-days of one scope and day, in the caller's transaction: every tag's
 * rollup row is locked first, then the visitors are numbered in one go (in key order), then
 * the scope's set is written once. Returns how many tag-days it closed (another sealer may
 * have closed some first).
 */
async function closeScopeDay(trx: Db, group: { day: string; scopeDay: repo.ScopeDay | undefined; tagIds: string[] }): Promise<number> {
  const { day, scopeDay } = group;
  const open = [];
  for (const tagId of group.tagIds) {
    const daily = await repo.lockTagDay(trx, tagId, day);
    const keys = await repo.openDayVisitorKeys(trx, tagId, day);
    if (keys.length > 0) open.push({ tagId, daily, keys });
  }
  if (open.length === 0) return 0;
  const numberOf = await repo.numberVisitors(
    trx,
    open.flatMap((tag) => tag.keys),
    day,
  );
  for (const { tagId, daily, keys } of open) {
    const set = unionVisitorSet(
      await repo.storedVisitorSet(trx, tagId, day),
      keys.map((key) => numberOf.get(key)!),
    );
    await repo.saveVisitorSet(trx, tagId, day, set);
    await repo.markTagMonthStale(trx, tagId, day);
    const count = decodeVisitorSet(set).length;
    if (daily && count !== Number(daily.unique_views)) await repo.setDayUniques(trx, tagId, day, count);
    await repo.deleteOpenDay(trx, tagId, day);
  }
  if (scopeDay) {
    const scopeSet = await repo.ensureScopeDaySet(trx, scopeDay);
    await repo.saveScopeDaySet(trx, scopeDay, unionVisitorSet(scopeSet.visitors, numberOf.values()), false);
    await repo.markScopeMonthStale(trx, scopeDay);
  }
  return open.length;
}

/**
 * Rebuilds up to `limit` scope-day sets marked stale (a tag of theirs was deleted, or they
 * predate migration 0009) from their tags' sets, each in its own transaction under the set's
 * lock; a scope-day whose tags have no set left goes. A limit per run keeps years of stale days
 * after an upgrade from holding up the closing of days; reports count stale days exactly
 * meanwhile. Returns how many were rebuilt.
 */
export async function rebuildStaleScopeDays(db: Db, limit: number): Promise<number> {
  const stale = await repo.staleScopeDays(db, limit);
  for (const key of stale) {
    await transaction(db, async (trx) => {
      const current = await repo.lockScopeDaySet(trx, key);
      // Rebuilt (or gone) meanwhile.
      if (!current?.stale) return;
      const sets = await repo.tagSetsOfScopeDays(trx, repo.scopeFromId(key.environment, key.scope_id), [key.day]);
      if (sets.length === 0) await repo.deleteScopeDaySet(trx, key);
      else
        await repo.saveScopeDaySet(
          trx,
          key,
          unionVisitorSet(
            undefined,
            sets.flatMap((row) => decodeVisitorSet(row.visitors)),
          ),
          true,
        );
    });
  }
  return stale.length;
}

/** How the seal job builds one kind of month set from its days' sets. */
interface MonthSets<K> {
  staleBefore(db: Db, month: string, limit: number): Promise<K[]>;
  /** Whether the set is stale, its row locked until the transaction ends; undefined if it has none. */
  lock(trx: Db, key: K): Promise<{ stale: number } | undefined>;
  /** The union of the month's day sets; undefined when it has none left. */
  build(trx: Db, key: K): Promise<string | undefined>;
  save(trx: Db, key: K, visitors: string): Promise<void>;
  remove(trx: Db, key: K): Promise<void>;
}

const SCOPE_MONTHS: MonthSets<repo.ScopeMonth> = {
  staleBefore: repo.staleScopeMonthsBefore,
  lock: repo.lockScopeMonthSet,
  build: (trx, key) => buildScopeMonthSet(trx, repo.scopeFromId(key.environment, key.scope_id), key.month),
  save: repo.saveScopeMonthSet,
  remove: repo.deleteScopeMonthSet,
};

const TAG_MONTHS: MonthSets<repo.TagMonth> = {
  staleBefore: repo.staleTagMonthsBefore,
  lock: repo.lockTagMonthSet,
  build: buildTagMonthSet,
  save: repo.saveTagMonthSet,
  remove: repo.deleteTagMonthSet,
};

/**
 * Builds up to `limit` month sets of one kind marked stale, of months before `month` (every day
 * of which is closed), oldest first, each in its own transaction under its row's lock: the union
 * of its days' sets. A day set that changes afterwards (a late view's day closed again, a tag
 * deleted) marks it stale again. A month with no day sets left goes. The thread is given back
 * between months; a backlog (the months before migrations 0029 and 0033) takes a pass per
 * `limit`, reports counting from the day sets meanwhile. Returns how many were built (or dropped).
 */
async function buildStaleMonths<K>(db: Db, month: string, limit: number, sets: MonthSets<K>): Promise<number> {
  const stale = await sets.staleBefore(db, month, limit);
  for (const key of stale) {
    await transaction(db, async (trx) => {
      const current = await sets.lock(trx, key);
      // Built (or gone) meanwhile.
      if (!current?.stale) return;
      const set = await sets.build(trx, key);
      if (set === undefined) await sets.remove(trx, key);
      else await sets.save(trx, key, set);
    });
    await setImmediate();
  }
  return stale.length;
}
