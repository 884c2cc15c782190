import type { ServiceContext } from '../context.js';
import { deleteTestEventsCreatedBefore } from '../features/events/index.js';
import { purgeEmptyTestFoldersCreatedBefore } from '../features/folders/index.js';
import { purgeTestTagsCreatedBefore } from '../features/tags/index.js';
import type { Job } from './runner.js';

const DAY_MS = 86_400_000;

/**
 * Deletes sandbox (test) data created before `before`; returns how many rows went. Tags go as
 * a deletion through the API takes them (with their files and analytics), without tag.deleted.
 */
export async function purgeSandbox(ctx: ServiceContext, before: string): Promise<{ tags: number; folders: number; events: number }> {
  const tags = await purgeTestTagsCreatedBefore(ctx, before);
  const folders = await purgeEmptyTestFoldersCreatedBefore(ctx, before);
  const events = Number((await deleteTestEventsCreatedBefore(ctx.db, before)).numDeletedRows);
  return { tags, folders, events };
}

export const sandboxPurgeJob: Job = {
  name: 'sandbox-purge',
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const before = new Date(ctx.clock.now().getTime() - ctx.config.sandboxRetentionDays * DAY_MS).toISOString();
    const purged = await purgeSandbox(ctx, before);
    if (purged.tags + purged.folders + purged.events > 0) ctx.log.info({ purged, before }, 'sandbox data purged');
  },
};
