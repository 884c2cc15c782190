import type { Redis } from 'ioredis';
import { DeliveryWorker } from './features/webhooks/delivery-worker.js';
import { createRateLimitStore } from './lib/rate-limit/store.js';
import { jobs } from './jobs/index.js';
import { startJobs, type JobContext } from './jobs/runner.js';
import { createOutboundAgents } from './lib/outbound.js';

/**
 * Background work: webhook deliveries and the periodic jobs. Runs inside `tagsvc serve` unless
 * --no-worker, or alone as `tagsvc worker`. Returns a stop function for graceful shutdown.
 */
export async function startWorker(context: JobContext, redis: Redis | undefined): Promise<() => Promise<void>> {
  const { config, database, clock, log } = context;
  const limits = createRateLimitStore(redis);
  const agents = createOutboundAgents(config);
  const deliveries = new DeliveryWorker({ db: database.db, clock, config, agents }, database, limits, log);
  deliveries.start();
  const stopJobs = startJobs(jobs, context);
  log.info({ jobs: jobs.map((job) => job.name) }, 'worker started');
  return async () => {
    await stopJobs();
    await deliveries.stop();
    agents.http.destroy();
    agents.https.destroy();
    await limits.close();
  };
}
