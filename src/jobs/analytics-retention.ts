import { purgeAnalyticsPastHistory } from '../features/analytics/index.js';
import type { Job } from './runner.js';

/** Analytics past each plan's history are deleted (features/analytics/retention.ts). */
export const analyticsRetentionJob: Job = {
  name: 'analytics-retention',
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const purged = await purgeAnalyticsPastHistory(ctx);
    for (const { plan, cutoff, views, clicks } of purged.plans) {
      if (views + clicks > 0) ctx.log.info({ plan, cutoff, views, clicks }, 'analytics past the plan history purged');
    }
    if (purged.visitors > 0) ctx.log.info({ visitors: purged.visitors }, 'visitors seen last before the longest history forgotten');
  },
};
