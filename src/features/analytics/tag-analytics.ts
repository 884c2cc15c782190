import type { Db } from '../../db/database.js';
import * as repo from './analytics.repository.js';
import { rollUpViewsIn } from './view-rollup.js';

/**
 * What the tags feature calls when a tag is deleted: its views and rollups go with it. Its
 * pending views are rolled up first, so the views the tag had before its deletion still yield
 * their events (before its tag.deleted).
 */
export async function deleteTagAnalytics(trx: Db, tagId: string): Promise<void> {
  // Only when the tag has some: rolling up takes the rollup's lock until this transaction ends.
  if (await repo.tagHasPendingViews(trx, tagId)) await rollUpViewsIn(trx);
  await repo.deleteTagAnalytics(trx, tagId);
}

/** The sandbox purge removes test tags; their analytics go first. */
export async function deleteAnalyticsOfTags(db: Db, tagIds: readonly string[]): Promise<void> {
  for (const id of tagIds) await repo.deleteTagAnalytics(db, id);
}
