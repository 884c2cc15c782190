import { captureResponse, Measurement } from '../lib/load.js';
import { measureInTurns, progress } from '../lib/measure.js';
import { verdict, type ComparisonResult } from '../lib/report.js';
import type { ComparisonScenario } from '../lib/scenario.js';
import { VARIANTS } from '../lib/variants.js';
import { scenarioContext, type RunContext } from './context.js';

const cost = (reference: number, candidate: number) => (1 - candidate / reference) * 100;

/** Two service variants on the same request (same key, same data), pair by pair. */
export async function runComparison(scenario: ComparisonScenario, run: RunContext): Promise<ComparisonResult> {
  const reference = { variant: scenario.reference, service: await run.services.get(scenario.reference), runs: new Measurement() };
  const candidate = { variant: scenario.candidate, service: await run.services.get(scenario.candidate), runs: new Measurement() };
  const request = await scenario.prepare(scenarioContext(run, reference.service));
  const answers = {
    reference: await captureResponse(reference.service.baseUrl, request),
    candidate: await captureResponse(candidate.service.baseUrl, request),
  };
  scenario.check?.(answers);
  progress(`  captured ${answers.candidate.status} ${answers.candidate.contentType}, ${answers.candidate.body.length} bytes`);

  await measureInTurns(
    [reference, candidate].map((side) => ({
      label: side.variant,
      baseUrl: side.service.baseUrl,
      runs: side.runs,
      pids: side.service.pids,
    })),
    request,
    run,
    run.settings.durationSeconds,
  );

  const referenceLoad = reference.runs.summary();
  const candidateLoad = candidate.runs.summary();
  const costPercent = cost(referenceLoad.requestsPerSecond, candidateLoad.requestsPerSecond);
  const pass = scenario.maxCostPercent === undefined ? null : costPercent < scenario.maxCostPercent;
  return {
    kind: 'comparison',
    name: scenario.name,
    description: scenario.description,
    request: { method: request.method, path: request.path },
    responseBytes: answers.candidate.body.length,
    reference: { variant: reference.variant, label: VARIANTS[reference.variant].label, load: referenceLoad },
    candidate: { variant: candidate.variant, label: VARIANTS[candidate.variant].label, load: candidateLoad },
    costPercent,
    roundCostPercents: candidateLoad.roundsRequestsPerSecond.map((rps, i) => cost(referenceLoad.roundsRequestsPerSecond[i]!, rps)),
    maxCostPercent: scenario.maxCostPercent ?? null,
    pass,
    verdict: verdict(pass),
  };
}
