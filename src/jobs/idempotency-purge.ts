import { purgeExpiredIdempotencyKeys } from '../features/idempotency/index.js';
import type { Job } from './runner.js';

/**
 * Idempotency-Key records are replayed for 24 hours, then deleted. A record past its 24 hours
 * is already ignored by the API, so this only keeps the table small.
 */
export const idempotencyPurgeJob: Job = {
  name: 'idempotency-purge',
  intervalMs: 10 * 60 * 1000,
  async run(ctx) {
    const purged = await purgeExpiredIdempotencyKeys(ctx);
    if (purged > 0) ctx.log.info({ purged }, 'expired idempotency keys purged');
  },
};
