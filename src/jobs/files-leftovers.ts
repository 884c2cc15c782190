import { sweepCrashLeftovers } from '../features/files/index.js';
import type { Job } from './runner.js';

/**
 * Dead uploads' temp files and blobs without a row (docs/files.md). The runner also runs it
 * once at start, so a restarted worker cleans up after the crash that stopped it.
 */
export const filesLeftoversJob: Job = {
  name: 'files-leftovers',
  intervalMs: 5 * 60 * 1000,
  async run(ctx) {
    const removed = await sweepCrashLeftovers(ctx);
    if (removed.tempFiles + removed.orphanBlobs > 0) ctx.log.info({ removed }, 'crash leftovers removed');
  },
};
