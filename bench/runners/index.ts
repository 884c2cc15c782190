import type { ScenarioResult } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { runBaseline } from './baseline.js';
import { runComparison } from './comparison.js';
import type { RunContext } from './context.js';
import { runMetrics } from './metrics.js';
import { runRate } from './rate.js';

export type { RunContext } from './context.js';

/** Runs one scenario by the runner for its kind. */
export function runScenario(scenario: Scenario, run: RunContext): Promise<ScenarioResult> {
  switch (scenario.kind) {
    case 'baseline':
      return runBaseline(scenario, run);
    case 'comparison':
      return runComparison(scenario, run);
    case 'rate':
      return runRate(scenario, run.settings);
    case 'metrics':
      return runMetrics(scenario, run);
  }
}
