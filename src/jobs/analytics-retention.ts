import { purgeAnalyticsBefore, purgeVisitorsBefore } from '../features/analytics/analytics.repository.js';
import { toDay } from '../features/analytics/period.js';
import { PLAN_LIMITS, PLANS } from '../features/accounts/plans.js';
import type { Job } from './runner.js';

/** Views past each plan's analytics history (Free 7 days, Pro 1 year, Enterprise 3 years) are deleted. */
export const analyticsRetentionJob: Job = {
  name: 'analytics-retention',
  intervalMs: 60 * 60 * 1000,
  async run({ database, clock, log }) {
    const today = Date.parse(`${toDay(clock.now().getTime())}T00:00:00.000Z`);
    for (const plan of PLANS) {
      // The oldest kept day matches the clamp reports apply: today and history - 1 days before it.
      const cutoff = toDay(today - (PLAN_LIMITS[plan].analyticsHistoryDays - 1) * 86_400_000);
      const views = await purgeAnalyticsBefore(database.db, plan, cutoff);
      if (views > 0) log.info({ plan, cutoff, views }, 'analytics past the plan history purged');
    }
    const longest = Math.max(...PLANS.map((plan) => PLAN_LIMITS[plan].analyticsHistoryDays));
    const visitors = await purgeVisitorsBefore(database.db, toDay(today - (longest - 1) * 86_400_000));
    if (visitors > 0) log.info({ visitors }, 'visitors seen last before the longest history forgotten');
  },
};
