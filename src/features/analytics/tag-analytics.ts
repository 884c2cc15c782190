import type { Db } from '../../db/database.js';
import * as repo from './analytics.repository.js';

/** What the tags feature calls when a tag is deleted: its views and rollups go with it. */
export function deleteTagAnalytics(trx: Db, tagId: string): Promise<void> {
  return repo.deleteTagAnalytics(trx, tagId);
}

/** The sandbox purge removes test tags; their analytics go first. */
export async function deleteAnalyticsOfTags(db: Db, tagIds: readonly string[]): Promise<void> {
  for (const id of tagIds) await repo.deleteTagAnalytics(db, id);
}
