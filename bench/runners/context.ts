import type { BenchData } from '../lib/data.js';
import type { ScenarioContext } from '../lib/scenario.js';
import type { Services } from '../lib/services.js';
import type { BenchSettings } from '../lib/settings.js';

/** What every runner needs from the run. */
export interface RunContext {
  root: string;
  /** Scratch directory of the run (bodies for the baseline, logs). */
  workDir: string;
  settings: BenchSettings;
  services: Services;
  data: BenchData;
}

export function scenarioContext(run: RunContext, baseUrl: string): ScenarioContext {
  return { baseUrl, createAccount: (plan) => run.data.createAccount(plan) };
}
