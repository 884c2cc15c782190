import type { Config } from '../config.js';
import { deleteTagAnalytics } from '../features/analytics/tag-analytics.js';
import { deleteTestEventsCreatedBefore } from '../features/events/outbox.js';
import { purgeFilesOfTestTagsCreatedBefore, removeFileBlobs } from '../features/files/tag-files.js';
import { deleteEmptyTestFoldersCreatedBefore } from '../features/folders/folders.repository.js';
import { deleteTagRow, findTestTagIdsCreatedBefore } from '../features/tags/tags.repository.js';
import type { Db } from '../db/database.js';
import { announceChange } from '../perf/exact-cache.js';
import type { Job } from './runner.js';

const DAY_MS = 86_400_000;

/**
 * Deletes sandbox (test) data older than the retention; returns how many rows went. The files
 * of purged tags go with them; their blobs are removed when `config` says where they live.
 */
export async function purgeSandbox(
  db: Db,
  before: string,
  config?: Pick<Config, 'dataDir'>,
  at: string = before,
): Promise<{ tags: number; folders: number; events: number }> {
  const fileIds = await purgeFilesOfTestTagsCreatedBefore(db, before, at);
  if (config) await removeFileBlobs(config, fileIds);
  // Each tag with its analytics, in a transaction of its own, as a deletion through the API.
  const tagIds = await findTestTagIdsCreatedBefore(db, before);
  for (const id of tagIds) {
    await db.transaction().execute(async (trx) => {
      await deleteTagAnalytics(trx, id);
      await deleteTagRow(trx, id);
    });
  }
  const tags = tagIds.length;
  if (tags > 0) announceChange('tags');
  let folders = 0;
  // Nested folders empty from the leaves up, one level per pass.
  for (;;) {
    const deleted = Number((await deleteEmptyTestFoldersCreatedBefore(db, before)).numDeletedRows);
    if (deleted === 0) break;
    folders += deleted;
  }
  const events = Number((await deleteTestEventsCreatedBefore(db, before)).numDeletedRows);
  return { tags, folders, events };
}

export const sandboxPurgeJob: Job = {
  name: 'sandbox-purge',
  intervalMs: 60 * 60 * 1000,
  async run({ config, database, clock, log }) {
    const before = new Date(clock.now().getTime() - config.sandboxRetentionDays * DAY_MS).toISOString();
    const purged = await purgeSandbox(database.db, before, config, clock.now().toISOString());
    if (purged.tags + purged.folders + purged.events > 0) log.info({ purged, before }, 'sandbox data purged');
  },
};
