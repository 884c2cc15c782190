import { sendWeeklyReports } from '../features/weekly-report/index.js';
import type { Job } from './runner.js';

/** Queues the weekly report of each subscriber on their Monday (features/weekly-report); once a week each. */
export const weeklyReportJob: Job = {
  name: 'weekly-report',
  intervalMs: 15 * 60 * 1000,
  async run(ctx) {
    const queued = await sendWeeklyReports(ctx);
    if (queued > 0) ctx.log.info({ queued }, 'weekly reports queued');
  },
};
