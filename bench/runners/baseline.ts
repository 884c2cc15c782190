import { startBaseline } from '../lib/baseline.js';
import { assertAllSucceeded, captureResponse, Measurement, sendRequests } from '../lib/load.js';
import { measureInTurns, progress } from '../lib/measure.js';
import { allPass, judge, type JudgedMetric } from '../lib/metrics.js';
import { verdict, type BaselineResult } from '../lib/report.js';
import type { BaselineScenario } from '../lib/scenario.js';
import { scenarioContext, type RunContext } from './context.js';

/** The service against node:http replaying the service's own answer, pair by pair. */
export async function runBaseline(scenario: BaselineScenario, run: RunContext): Promise<BaselineResult> {
  const variant = scenario.variant ?? 'default';
  const service = await run.services.get(variant);
  const context = scenarioContext(run, service);
  const request = await scenario.prepare(context);
  const captured = await captureResponse(service.baseUrl, request);
  progress(`  captured ${captured.status} ${captured.contentType}, ${captured.body.length} bytes`);
  const baseline = await startBaseline(captured, { root: run.root, workDir: run.workDir, name: scenario.name, core: run.pinning?.server });
  const baselineRuns = new Measurement();
  const serviceRuns = new Measurement();
  try {
    const sides = [
      { label: 'baseline', baseUrl: baseline.baseUrl, runs: baselineRuns, pids: async () => [baseline.pid] },
      { label: 'tagsvc', baseUrl: service.baseUrl, runs: serviceRuns, pids: service.pids },
    ];
    await measureInTurns(sides, request, run, run.settings.durationSeconds * run.settings.rounds);
  } finally {
    await baseline.close();
  }
  let checks: JudgedMetric[] = [];
  if (scenario.verify) {
    // A fixed number of requests, each waited for: the counts the checks compare are exact.
    const load = async (amount: number) => {
      progress(`  tagsvc: ${amount.toLocaleString('en-US')} requests to verify`);
      const stats = await sendRequests(service.baseUrl, request, amount, run.settings.connections);
      assertAllSucceeded('verification', stats);
      return stats;
    };
    checks = (await scenario.verify(context, request, load)).map(judge);
    for (const m of checks) progress(`  ${m.label}: ${m.value} ${m.unit}${m.pass === null ? '' : m.pass ? ' PASS' : ' FAIL'}`);
  }
  const baselineSummary = baselineRuns.summary();
  const serviceSummary = serviceRuns.summary();
  const ratio = serviceSummary.requestsPerSecond / baselineSummary.requestsPerSecond;
  const cpuMultiple = serviceSummary.cpuMicrosPerRequest / baselineSummary.cpuMicrosPerRequest;
  const maxCpuMultiple = scenario.maxCpuMultiple?.[run.settings.databaseUrl ? 'postgres' : 'sqlite'] ?? null;
  const multiplePass = maxCpuMultiple === null ? null : cpuMultiple <= maxCpuMultiple;
  const checksPass = allPass(checks);
  const pass = multiplePass === null && checksPass === null ? null : multiplePass !== false && checksPass !== false;
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
    cpuMultiple,
    roundCpuMultiples: serviceSummary.roundsCpuMicrosPerRequest.map((us, i) => us / baselineSummary.roundsCpuMicrosPerRequest[i]!),
    maxCpuMultiple,
    checks,
    pass,
    verdict: verdict(pass),
  };
}
