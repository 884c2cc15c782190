import { purgeDeliveriesBefore } from '../features/webhooks/index.js';
import type { Job } from './runner.js';

export const DELIVERY_RETENTION_DAYS = 30;

/** Delivery records and attempts are kept 30 days, then deleted with the events they carried. */
export const deliveryRetentionJob: Job = {
  name: 'delivery-retention',
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const { clock, log } = ctx;
    const before = new Date(clock.now().getTime() - DELIVERY_RETENTION_DAYS * 86_400_000).toISOString();
    const purged = await purgeDeliveriesBefore(ctx, before);
    if (purged.deliveries + purged.events > 0) log.info({ purged, before }, 'old deliveries purged');
  },
};
