import { closeVisitorDays } from '../features/analytics/index.js';
import type { Job } from './runner.js';

/** Closes finished days' visitor rows into numbered visitor sets (see features/analytics/sealing.ts). */
export const analyticsSealJob: Job = {
  name: 'analytics-seal',
  intervalMs: 60_000,
  async run({ db, clock, log }) {
    const closed = await closeVisitorDays(db, clock.now().getTime());
    if (closed > 0) log.info({ tagDays: closed }, 'visitor days closed');
  },
};
