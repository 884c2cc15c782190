import type { ServiceContext } from './context.js';
import { DeliveryWorker } from './features/webhooks/index.js';
import { jobs } from './jobs/index.js';
import { startJobs } from './jobs/runner.js';

/**
 * Background work: webhook deliveries and the periodic jobs. Runs inside `tagsvc serve` unless
 * --no-worker, or alone as `tagsvc worker`. Returns a stop function for graceful shutdown.
 */
export function startWorker(ctx: ServiceContext): () => Promise<void> {
  const deliveries = new DeliveryWorker(ctx);
  deliveries.start();
  const stopJobs = startJobs(jobs, ctx);
  ctx.log.info({ jobs: jobs.map((job) => job.name) }, 'worker started');
  return async () => {
    await stopJobs();
    await deliveries.stop();
  };
}
