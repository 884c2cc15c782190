import type { ServiceContext } from '../../context.js';
import { PLAN_LIMITS, PLANS, type Plan } from '../accounts/index.js';
import { purgeAnalyticsBefore, purgeClicksBefore, purgeVisitorsBefore } from './retention.repository.js';
import { toDay } from './period.js';

const DAY_MS = 86_400_000;

/**
 * Deletes views, rollups and link clicks past each plan's history (Free 7 days, Pro 1 year,
 * Enterprise 3 years), and visitors seen last before the longest history. The oldest kept day
 * matches the clamp reports apply: today and history - 1 days before it.
 */
export async function purgeAnalyticsPastHistory(ctx: ServiceContext) {
  const today = Date.parse(`${toDay(ctx.clock.now().getTime())}T00:00:00.000Z`);
  const plans: { plan: Plan; cutoff: string; views: number; clicks: number }[] = [];
  for (const plan of PLANS) {
    const cutoff = toDay(today - (PLAN_LIMITS[plan].analyticsHistoryDays - 1) * DAY_MS);
    plans.push({
      plan,
      cutoff,
      views: await purgeAnalyticsBefore(ctx.db, plan, cutoff),
      clicks: await purgeClicksBefore(ctx.db, plan, cutoff),
    });
  }
  const longest = Math.max(...PLANS.map((plan) => PLAN_LIMITS[plan].analyticsHistoryDays));
  const visitors = await purgeVisitorsBefore(ctx.db, toDay(today - (longest - 1) * DAY_MS));
  return { plans, visitors };
}
