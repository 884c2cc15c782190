import type { CapturedResponse } from './baseline.js';
import type { Account } from './data.js';
import type { LoadRequest, RunStats } from './load.js';
import type { Metric } from './metrics.js';
import type { Service } from './service.js';
import type { BenchSettings } from './settings.js';
import type { VariantContext } from './variant-context.js';
import type { VariantName } from './variants.js';

/** What a scenario gets to set itself up. */
export interface ScenarioContext {
  /** The service the scenario measures (a comparison's reference), for setup calls through the API. */
  baseUrl: string;
  /** That service's process (pid for memory, base URL). */
  service: Service;
  /** A fresh user on `plan` with one API key carrying every permission, made through the CLI. */
  createAccount(plan?: 'pro' | 'enterprise'): Promise<Account>;
  /** The run: work directory, settings, data. */
  run: VariantContext;
}

interface Common {
  /** Short, unique; what BENCH_ONLY selects by. */
  name: string;
  description: string;
}

/**
 * The service against a bare node:http server replaying the service's own answer, captured
 * once: what the framework, authentication and the database cost on top of plain HTTP.
 */
export interface BaselineScenario extends Common {
  kind: 'baseline';
  /** Default: `default` (rate limits off). */
  variant?: VariantName;
  /**
   * Most CPU per request the service may use, as a multiple of the bare server's, on each
   * database (on PostgreSQL the database's processes working for the service count too); above
   * it the run fails. Without one for the run's database, the figure is only reported.
   */
  maxCpuMultiple?: { sqlite?: number; postgres?: number };
  /** Creates accounts, tags… through the CLI or the API; returns the request to repeat. */
  prepare(context: ScenarioContext): Promise<LoadRequest>;
  /**
   * After the measurement: checks of what the service did with the requests (e.g. views
   * stored). `load` sends a fixed number of requests and waits for every answer, so counts can
   * be compared exactly (a timed run cuts off the requests in flight at its end).
   */
  verify?(context: ScenarioContext, request: LoadRequest, load: (amount: number) => Promise<RunStats>): Promise<Metric[]>;
}

/** Two variants of the service on the same request: what the candidate's settings cost. */
export interface ComparisonScenario extends Common {
  kind: 'comparison';
  reference: VariantName;
  candidate: VariantName;
  /** Most throughput the candidate may lose, in % of the reference's; without one, the figure is only reported. */
  maxCostPercent?: number;
  prepare(context: ScenarioContext): Promise<LoadRequest>;
  /** Throws when the answers show the variants did not differ as intended (a setting not taken). */
  check?(answers: { reference: CapturedResponse; candidate: CapturedResponse }): void;
}

/** An operation repeated in this process for a while, with no server at all: operations per second. */
export interface RateScenario extends Common {
  kind: 'rate';
  /** What one operation is, plural: "renders". */
  unit: string;
  seconds(settings: BenchSettings): number;
  /** Loads what the operation needs; returns the operation. */
  prepare(): Promise<() => Promise<unknown>>;
}

/**
 * Anything else: the scenario drives the service itself (uploads, a webhook receiver, report
 * queries) and returns named figures, each with or without a target.
 */
export interface MetricsScenario extends Common {
  kind: 'metrics';
  variant: VariantName;
  run(context: ScenarioContext): Promise<{ metrics: Metric[]; details?: Record<string, unknown> }>;
}

export type Scenario = BaselineScenario | ComparisonScenario | RateScenario | MetricsScenario;
