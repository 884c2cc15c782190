import { purgeFinishedMail } from '../features/mail/index.js';
import type { Job } from './runner.js';

/** The rows of mails sent or given up are kept 30 days (their subject, status and error), then deleted. */
export const mailRetentionJob: Job = {
  name: 'mail-retention',
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const purged = await purgeFinishedMail(ctx);
    if (purged > 0) ctx.log.info({ purged }, 'old mail purged');
  },
};
