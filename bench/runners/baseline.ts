import { startBaseline } from '../lib/baseline.js';
import { captureResponse, Measurement } from '../lib/load.js';
import { measure, progress } from '../lib/measure.js';
import { verdict, type BaselineResult } from '../lib/report.js';
import type { BaselineScenario } from '../lib/scenario.js';
import { scenarioContext, type RunContext } from './context.js';

/** The service against node:http replaying the service's own answer, pair by pair. */
export async function runBaseline(scenario: BaselineScenario, run: RunContext): Promise<BaselineResult> {
  const variant = scenario.variant ?? 'default';
  const service = await run.services.get(variant);
  const request = await scenario.prepare(scenarioContext(run, service.baseUrl));
  const captured = await captureResponse(service.baseUrl, request);
  progress(`  captured ${captured.status} ${captured.contentType}, ${captured.body.length} bytes`);
  const baseline = await startBaseline(captured, { root: run.root, workDir: run.workDir, name: scenario.name });
  const baselineRuns = new Measurement();
  const serviceRuns = new Measurement();
  const { rounds, durationSeconds: seconds } = run.settings;
  try {
    // Alternating, back to back, so both servers see the same machine conditions.
    for (let round = 1; round <= rounds; round++) {
      await measure('baseline', baseline.baseUrl, request, run.settings, { round, rounds, seconds }, baselineRuns);
      await measure('tagsvc', service.baseUrl, request, run.settings, { round, rounds, seconds }, serviceRuns);
    }
  } finally {
    await baseline.close();
  }
  const baselineSummary = baselineRuns.summary();
  const serviceSummary = serviceRuns.summary();
  const ratio = serviceSummary.requestsPerSecond / baselineSummary.requestsPerSecond;
  const pass = scenario.targetRatio === undefined ? null : ratio >= scenario.targetRatio;
  return {
    kind: 'baseline',
    name: scenario.name,
    description: scenario.description,
    variant,
    request: { method: request.method, path: request.path },
    responseBytes: captured.body.length,
    baseline: baselineSummary,
    service: serviceSummary,
    ratio,
    roundRatios: serviceSummary.roundsRequestsPerSecond.map((rps, i) => rps / baselineSummary.roundsRequestsPerSecond[i]!),
    targetRatio: scenario.targetRatio ?? null,
    pass,
    verdict: verdict(pass),
  };
}
