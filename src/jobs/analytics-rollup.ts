import { rollUpViews, vacuumInboxIfDue } from '../features/analytics/index.js';
import type { Job } from './runner.js';

/**
 * Ingests the views pages committed to the inbox (features/analytics/view-rollup.ts). Every second:
 * view webhooks leave about a second after the view, and one roll takes in a second's views.
 * Then, on PostgreSQL, vacuums the inbox when enough records have gone through it.
 */
export const analyticsRollupJob: Job = {
  name: 'analytics-rollup',
  intervalMs: 1000,
  async run({ db }) {
    await rollUpViews(db);
    await vacuumInboxIfDue(db);
  },
};
