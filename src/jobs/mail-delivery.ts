import { deliverDueMail } from '../features/mail/index.js';
import type { Job } from './runner.js';

/** Sends the queued mail (features/mail): a few seconds after its change commits, retried on failure. */
export const mailDeliveryJob: Job = {
  name: 'mail-delivery',
  intervalMs: 5_000,
  async run(ctx) {
    const sent = await deliverDueMail(ctx);
    if (sent > 0) ctx.log.info({ sent }, 'mail sent');
  },
};
