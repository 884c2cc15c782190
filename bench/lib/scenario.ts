import type { LoadRequest } from './load.js';
import type { Service } from './service.js';

/** What a scenario gets to set itself up: the running service and its command line. */
export interface ScenarioContext {
  service: Service;
}

/**
 * One benchmark. The harness asks it for a request, captures the service's answer to it once,
 * then measures the service against a bare node:http server replaying that answer.
 */
export interface Scenario {
  /** Short, unique; what BENCH_ONLY selects by. */
  name: string;
  description: string;
  /** Minimum service req/s as a fraction of the baseline's; below it the run fails. */
  targetRatio: number;
  /** Creates accounts, tags… through the CLI or the API; returns the request to repeat. */
  prepare(context: ScenarioContext): Promise<LoadRequest>;
}
