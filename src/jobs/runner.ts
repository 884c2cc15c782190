import type { ServiceContext } from '../context.js';
import { failureFields } from '../errors.js';

/** Background work that runs every `intervalMs` in the worker (in-process or `tagsvc worker`). */
export interface Job {
  name: string;
  intervalMs: number;
  run(context: ServiceContext): Promise<void>;
}

/**
 * Runs each job on its interval, never overlapping with itself. Returns a stop function that
 * waits for runs in progress, so shutdown does not cut a job's transaction in half.
 */
export function startJobs(jobs: readonly Job[], context: ServiceContext): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  let stopped = false;

  for (const job of jobs) {
    let busy = false;
    const tick = () => {
      if (busy || stopped) return;
      busy = true;
      const run = job
        .run(context)
        .catch((error: unknown) => context.log.error({ ...failureFields(error), job: job.name }, 'job failed'))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    timers.push(setInterval(tick, job.intervalMs));
    tick();
  }

  return async () => {
    stopped = true;
    for (const timer of timers) clearInterval(timer);
    await Promise.all(running);
  };
}
