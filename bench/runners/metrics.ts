import { allPass, judge } from '../lib/metrics.js';
import { progress } from '../lib/measure.js';
import { verdict, type MetricsResult } from '../lib/report.js';
import type { MetricsScenario } from '../lib/scenario.js';
import { scenarioContext, type RunContext } from './context.js';

/** A scenario that measures on its own terms and returns its figures. */
export async function runMetrics(scenario: MetricsScenario, run: RunContext): Promise<MetricsResult> {
  const service = await run.services.get(scenario.variant);
  const outcome = await scenario.run(scenarioContext(run, service));
  const metrics = outcome.metrics.map(judge);
  for (const m of metrics) {
    progress(
      `  ${m.label}: ${Number.isInteger(m.value) ? m.value : m.value.toFixed(2)} ${m.unit}${m.pass === null ? '' : m.pass ? ' PASS' : ' FAIL'}`,
    );
  }
  const pass = allPass(metrics);
  return {
    kind: 'metrics',
    name: scenario.name,
    description: scenario.description,
    variant: scenario.variant,
    metrics,
    details: outcome.details ?? {},
    pass,
    verdict: verdict(pass),
  };
}
