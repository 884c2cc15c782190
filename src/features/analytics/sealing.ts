import type { Db } from '../../db/database.js';
import * as repo from './analytics.repository.js';
import { decodeVisitorSet, unionVisitorSet } from './visitor-sets.js';
import { rollUpViews } from './view-rollup.js';
import { hourOf, toDay } from './period.js';

/**
 * Views are stamped when they arrive and committed within moments, so a day is closed a little
 * after it ends, and an hour's visitor rows are dropped once no view can still land in it.
 */
export const DAY_CLOSE_GRACE_MS = 10 * 60_000;
export const HOUR_ROWS_KEPT_MS = 2 * 3_600_000;
const TAG_DAYS_PER_PASS = 200;

/**
 * Closes the tag-days before `now - grace`: their visitor rows become a numbered visitor set
 * (merged with one sealed before, if a late view reopened the day), the day's unique count is
 * set from it, and the rows go. Each tag-day in its own transaction, under its rollup row's
 * lock, so reports always see the day's visitors in one of the two places. Returns how many
 * tag-days were closed.
 */
export async function closeVisitorDays(db: Db, nowMs: number): Promise<number> {
  const before = toDay(nowMs - DAY_CLOSE_GRACE_MS);
  // Pending views add visitor rows: roll them up first, so the days close with them.
  await rollUpViews(db);
  let closed = 0;
  for (;;) {
    const open = await repo.openTagDaysBefore(db, before, TAG_DAYS_PER_PASS);
    for (const { tag_id: tagId, day } of open) {
      await db.transaction().execute(async (trx) => {
        const daily = await repo.lockTagDay(trx, tagId, day);
        const keys = await repo.openDayVisitorKeys(trx, tagId, day);
        // Another sealer got here first.
        if (keys.length === 0) return;
        const numbers = await repo.numberVisitors(trx, keys, day);
        const set = unionVisitorSet(await repo.storedVisitorSet(trx, tagId, day), numbers);
        await repo.saveVisitorSet(trx, tagId, day, set);
        if (daily) {
          const count = decodeVisitorSet(set).length;
          if (count !== Number(daily.unique_views)) await repo.setDayUniques(trx, tagId, day, count);
          // The scope's set of the day takes them too (locked after the tag's row, as everywhere).
          const scopeDay = { environment: daily.environment, scope_id: repo.scopeIdOf(daily), day };
          const scopeSet = await repo.ensureScopeDaySet(trx, scopeDay);
          await repo.saveScopeDaySet(trx, scopeDay, unionVisitorSet(scopeSet.visitors, numbers), false);
        }
        await repo.deleteOpenDay(trx, tagId, day);
      });
      closed++;
    }
    if (open.length < TAG_DAYS_PER_PASS) break;
  }
  await repo.deleteVisitorHoursBefore(db, hourOf(new Date(nowMs - HOUR_ROWS_KEPT_MS).toISOString()));
  await rebuildStaleScopeDays(db);
  return closed;
}

/**
 * Rebuilds the scope-day sets marked stale (a tag of theirs was deleted, or they predate
 * migration 0009) from their tags' sets, each in its own transaction under the set's lock; a
 * scope-day whose tags have no set left goes. Returns how many were rebuilt.
 */
export async function rebuildStaleScopeDays(db: Db): Promise<number> {
  let rebuilt = 0;
  for (;;) {
    const stale = await repo.staleScopeDays(db, TAG_DAYS_PER_PASS);
    for (const key of stale) {
      await db.transaction().execute(async (trx) => {
        const current = await repo.lockScopeDaySet(trx, key);
        // Rebuilt (or gone) meanwhile.
        if (!current?.stale) return;
        const sets = await repo.tagSetsOfScopeDays(trx, repo.scopeFromId(key.environment, key.scope_id), [key.day]);
        if (sets.length === 0) await repo.deleteScopeDaySet(trx, key);
        else await repo.saveScopeDaySet(trx, key, unionVisitorSet(undefined, sets.flatMap((row) => decodeVisitorSet(row.visitors))), true);
      });
      rebuilt++;
    }
    if (stale.length < TAG_DAYS_PER_PASS) return rebuilt;
  }
}
