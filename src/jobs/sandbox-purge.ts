import { deleteTestEventsCreatedBefore } from '../features/events/outbox.js';
import { deleteEmptyTestFoldersCreatedBefore } from '../features/folders/folders.repository.js';
import { deleteTestTagsCreatedBefore } from '../features/tags/tags.repository.js';
import type { Db } from '../db/database.js';
import type { Job } from './runner.js';

const DAY_MS = 86_400_000;

/** Deletes sandbox (test) data older than the retention; returns how many rows went. */
export async function purgeSandbox(db: Db, before: string): Promise<{ tags: number; folders: number; events: number }> {
  const tags = Number((await deleteTestTagsCreatedBefore(db, before)).numDeletedRows);
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
    const purged = await purgeSandbox(database.db, before);
    if (purged.tags + purged.folders + purged.events > 0) log.info({ purged, before }, 'sandbox data purged');
  },
};
