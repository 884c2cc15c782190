/**
 * `npm run bench`: measures tagsvc against a bare node:http server sending the same bytes, in
 * the same run, scenario by scenario (bench/scenarios). Absolute req/s depend on the machine;
 * the ratio is what the targets are about, because both servers see the same client and CPU.
 *
 * Environment:
 *   BENCH_DURATION      measured seconds per server and round (default 10)
 *   BENCH_WARMUP        unmeasured seconds before the first round (default 2)
 *   BENCH_ROUNDS        baseline/service pairs per scenario (default 1)
 *   BENCH_CONNECTIONS   concurrent connections (default 10)
 *   BENCH_ONLY          scenario names to run, comma-separated (default all)
 *   BENCH_LOG_LEVEL     the service's LOG_LEVEL (default warn)
 *   BENCH_DATABASE_URL  run on PostgreSQL, in a throwaway schema, instead of SQLite
 *
 * Exit code: 0 when every scenario meets its target, 1 when one misses it or the run failed.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBaseline } from './lib/baseline.js';
import { killAllNow, stopAll } from './lib/children.js';
import { assertAllSucceeded, captureResponse, generateLoad, Measurement, type LoadRequest } from './lib/load.js';
import { describeEnvironment, formatTable, writeReport, type RunReport, type ScenarioResult } from './lib/report.js';
import type { Scenario } from './lib/scenario.js';
import { readSettings, type BenchSettings } from './lib/settings.js';
import { startService, type Service } from './lib/service.js';
import { scenarios } from './scenarios/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outputDir = join(root, '.bench');

const progress = (message: string) => process.stderr.write(`${message}\n`);

function select(all: Scenario[], only: string[]): Scenario[] {
  if (only.length === 0) return all;
  const unknown = only.filter((name) => !all.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: no scenario named ${unknown.join(', ')}; known: ${all.map((s) => s.name).join(', ')}`);
  return all.filter((s) => only.includes(s.name));
}

/** One measured run into `into`, after a discarded warm-up on the first round. */
async function measure(label: string, baseUrl: string, request: LoadRequest, settings: BenchSettings, round: number, into: Measurement): Promise<void> {
  const options = { connections: settings.connections };
  const of = settings.rounds > 1 ? ` (round ${round}/${settings.rounds})` : '';
  if (round === 1 && settings.warmupSeconds > 0) {
    progress(`  ${label}: warming up ${settings.warmupSeconds} s`);
    await generateLoad(baseUrl, request, { ...options, durationSeconds: settings.warmupSeconds });
  }
  progress(`  ${label}: measuring ${settings.durationSeconds} s${of}`);
  const run = await generateLoad(baseUrl, request, { ...options, durationSeconds: settings.durationSeconds }, into);
  progress(`  ${label}: ${Math.round(run.requestsPerSecond).toLocaleString('en-US')} req/s`);
  // Checked at once: fast 401s or 429s would otherwise pass for speed.
  assertAllSucceeded(label, run);
}

async function runScenario(scenario: Scenario, service: Service, settings: BenchSettings, workDir: string): Promise<ScenarioResult> {
  progress(`\n${scenario.name}: ${scenario.description}`);
  const request = await scenario.prepare({ service });
  const captured = await captureResponse(service.baseUrl, request);
  progress(`  captured ${captured.status} ${captured.contentType}, ${captured.body.length} bytes`);
  const baseline = await startBaseline(captured, { root, workDir, name: scenario.name });
  const baselineRuns = new Measurement();
  const serviceRuns = new Measurement();
  try {
    // Alternating, back to back, so both servers see the same machine conditions.
    for (let round = 1; round <= settings.rounds; round++) {
      await measure('baseline', baseline.baseUrl, request, settings, round, baselineRuns);
      await measure('tagsvc', service.baseUrl, request, settings, round, serviceRuns);
    }
  } finally {
    await baseline.close();
  }
  const baselineSummary = baselineRuns.summary();
  const serviceSummary = serviceRuns.summary();
  const ratio = serviceSummary.requestsPerSecond / baselineSummary.requestsPerSecond;
  return {
    name: scenario.name,
    description: scenario.description,
    request: { method: request.method, path: request.path },
    responseBytes: captured.body.length,
    baseline: baselineSummary,
    service: serviceSummary,
    ratio,
    roundRatios: serviceSummary.roundsRequestsPerSecond.map((rps, i) => rps / baselineSummary.roundsRequestsPerSecond[i]!),
    targetRatio: scenario.targetRatio,
    pass: ratio >= scenario.targetRatio,
  };
}

async function main(): Promise<number> {
  const settings = readSettings();
  const selected = select(scenarios, settings.only);
  const startedAt = new Date().toISOString();
  const workDir = mkdtempSync(join(tmpdir(), 'tagsvc-bench-'));
  let service: Service | undefined;

  const release = async () => {
    await service?.close().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
    await stopAll();
    // The service log is kept (it is small at warn) so a failed run can be investigated.
    if (service && existsSync(service.logFile)) {
      mkdirSync(outputDir, { recursive: true });
      copyFileSync(service.logFile, join(outputDir, 'service.log'));
    }
    rmSync(workDir, { recursive: true, force: true });
  };
  // Memoised: a signal can arrive while the normal path is already cleaning up.
  let cleaning: Promise<void> | undefined;
  const cleanup = () => (cleaning ??= release());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`\n${signal}: stopping`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    service = await startService({ root, workDir, logLevel: settings.logLevel, databaseUrl: settings.databaseUrl });
    progress(
      `tagsvc on ${service.baseUrl}, database ${service.database}, LOG_LEVEL=${service.logLevel}; ` +
        `${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.rounds} x ${settings.durationSeconds} s per server`,
    );
    const results: ScenarioResult[] = [];
    for (const scenario of selected) results.push(await runScenario(scenario, service, settings, workDir));

    const report: RunReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      environment: describeEnvironment(),
      // Picked field by field: BENCH_DATABASE_URL may hold a password and must not be written out.
      settings: {
        durationSeconds: settings.durationSeconds,
        warmupSeconds: settings.warmupSeconds,
        rounds: settings.rounds,
        connections: settings.connections,
        logLevel: service.logLevel,
        database: service.database,
      },
      scenarios: results,
      pass: results.every((r) => r.pass),
    };
    const file = join(outputDir, 'results.json');
    writeReport(file, report);
    console.log(`\n${formatTable(results)}\n`);
    console.log(`database: ${service.database}, service LOG_LEVEL=${service.logLevel}, node ${process.version}, ${report.environment.cpuCount} CPUs`);
    console.log(`results: ${file}`);
    if (!report.pass) console.log(`FAIL: ${results.filter((r) => !r.pass).map((r) => `${r.name} ratio ${r.ratio.toFixed(3)} < ${r.targetRatio}`).join('; ')}`);
    return report.pass ? 0 : 1;
  } catch (error) {
    progress(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
    if (service) progress(`service log: ${join(outputDir, 'service.log')}`);
    return 1;
  } finally {
    await cleanup();
  }
}

// A synchronous 'exit' handler is the last chance to kill children if something throws past main.
process.on('exit', killAllNow);
// Exit explicitly: a stray handle (a socket, a timer in a dependency) must not keep the bench alive.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
