/**
 * `npm run bench`: measures tagsvc scenario by scenario (bench/scenarios). Absolute figures
 * depend on the machine; the targets are about relative ones, measured in the same run so both
 * sides see the same client and CPU:
 *   baseline    tagsvc against a bare node:http server sending the same bytes: the server's CPU
 *               per request (utime + stime) as a multiple of the bare server's, with wrk pinned
 *               to one core and the servers to the other (taskset); the throughput ratio too
 *   comparison  two service variants (lib/variants.ts) on the same request (cost in %)
 *   rate        an operation in this process, no server (operations per second, reported only)
 *   metrics     the scenario drives the service itself and returns named figures with targets
 *               (file transfer MB/s and memory, webhook deliveries, analytics report latency)
 *
 * Environment:
 *   BENCH_DURATION        measured seconds per server, whole (default 10)
 *   BENCH_WARMUP          unmeasured seconds before each server's first slice (default 2)
 *   BENCH_ROUNDS          a baseline scenario measures each server BENCH_DURATION × this (default 1)
 *   BENCH_COMPARE_SLICE   baseline scenarios and comparisons measure each server in slices of
 *                         this many seconds, the servers taking turns in ABBA order (default 2)
 *   BENCH_CONNECTIONS     concurrent connections (default 50)
 *   BENCH_QR_SECONDS      measured seconds per QR rendering scenario (default 5)
 *   BENCH_ONLY            scenario names to run, comma-separated (default all)
 *   BENCH_LOG_LEVEL       the service's LOG_LEVEL (default warn)
 *   BENCH_DATABASE_URL    run on PostgreSQL, in a throwaway schema, instead of SQLite
 *   BENCH_REDIS_URL       Redis for the limiter-redis variant (default redis://127.0.0.1:6379)
 *   BENCH_FILE_MB         size of the file-upload/-download file in MB of 1,048,576 bytes (default 100)
 *   BENCH_WEBHOOK_EVENTS  tag.created events webhooks-fanout sends to its 2 webhooks (default 10,000)
 *   BENCH_VIEWS           views in the generated analytics dataset (default 10,000,000)
 *   BENCH_TAGS            tags they are spread over (default 1,000)
 *   BENCH_ANALYTICS_DIR   keep the analytics dataset there and reuse it in later runs with the
 *                         same BENCH_VIEWS/BENCH_TAGS and database (default: generated per run)
 *
 * Exit code: 0 when every scenario with a target meets it, 1 when one misses it or the run failed.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAllNow, stopAll } from './lib/children.js';
import { detectPinning } from './lib/cpu.js';
import { createBenchData } from './lib/data.js';
import { progress, slicesOf } from './lib/measure.js';
import { describeEnvironment, failures, formatTable, writeReport, type RunReport, type ScenarioResult } from './lib/report.js';
import type { Scenario } from './lib/scenario.js';
import { Services } from './lib/services.js';
import { readSettings } from './lib/settings.js';
import { describeVariant } from './lib/variants.js';
import { runScenario } from './runners/index.js';
import { scenarios } from './scenarios/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const outputDir = join(root, '.bench');

function select(all: Scenario[], only: string[]): Scenario[] {
  if (only.length === 0) return all;
  const unknown = only.filter((name) => !all.some((s) => s.name === name));
  if (unknown.length > 0)
    throw new Error(`BENCH_ONLY: no scenario named ${unknown.join(', ')}; known: ${all.map((s) => s.name).join(', ')}`);
  return all.filter((s) => only.includes(s.name));
}

async function main(): Promise<number> {
  const settings = readSettings();
  const selected = select(scenarios, settings.only);
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0]!;
  const workDir = mkdtempSync(join(tmpdir(), 'tagsvc-bench-'));
  const data = createBenchData({ root, workDir, databaseUrl: settings.databaseUrl });
  const pinning = detectPinning();
  const context = { root, workDir, settings, data, pinning };
  const services = new Services({ ...context, progress });

  const release = async () => {
    await services.closeAll().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
    await data.drop().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
    await stopAll();
    // The service logs are kept (they are small at warn) so a failed run can be investigated;
    // an earlier run's go first, so every log there is this run's.
    mkdirSync(outputDir, { recursive: true });
    for (const file of readdirSync(outputDir)) if (/^service\..*log$/.test(file)) rmSync(join(outputDir, file));
    for (const [variant, logFile] of services.logFiles()) {
      if (existsSync(logFile)) copyFileSync(logFile, join(outputDir, `service.${variant}.log`));
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
    progress(
      `database ${data.database}, LOG_LEVEL=${settings.logLevel}; ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ` +
        `${settings.durationSeconds} s per server (baseline scenarios: × ${settings.rounds} round(s)), ` +
        `in slices of ${settings.compareSliceSeconds} s, the servers taking turns; ` +
        (pinning
          ? `servers on core ${pinning.server}, load generator on core ${pinning.load}`
          : 'nothing pinned (one core, or no taskset)'),
    );
    const results: ScenarioResult[] = [];
    for (const scenario of selected) {
      progress(`\n${scenario.name}: ${scenario.description}`);
      results.push(await runScenario(scenario, { ...context, services }));
    }

    const variants = Object.fromEntries(services.started().map((name) => [name, describeVariant(name, context)]));
    const report: RunReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      environment: describeEnvironment(loadAtStart),
      // Picked field by field: BENCH_DATABASE_URL may hold a password and must not be written out.
      settings: {
        durationSeconds: settings.durationSeconds,
        warmupSeconds: settings.warmupSeconds,
        rounds: settings.rounds,
        sliceSeconds: settings.compareSliceSeconds,
        baselineSlices: slicesOf(settings, settings.durationSeconds * settings.rounds).length,
        comparisonSlices: slicesOf(settings, settings.durationSeconds).length,
        qrSeconds: settings.qrSeconds,
        connections: settings.connections,
        fileMb: settings.fileMb,
        webhookEvents: settings.webhookEvents,
        analyticsViews: settings.analyticsViews,
        analyticsTags: settings.analyticsTags,
        logLevel: settings.logLevel,
        database: data.database,
        variants,
      },
      scenarios: results,
      pass: results.every((r) => r.pass !== false),
    };
    const file = join(outputDir, 'results.json');
    writeReport(file, report);
    console.log(`\n${formatTable(results)}\n`);
    const { cpuCount, loadAverage } = report.environment;
    console.log(`database: ${data.database}, service LOG_LEVEL=${settings.logLevel}, node ${process.version}, ${cpuCount} CPUs`);
    // The load before the run says whether anything else competed for the CPU during it.
    console.log(`load average (1 min): ${loadAverage.start.toFixed(2)} before the run, ${loadAverage.end.toFixed(2)} after`);
    for (const [name, env] of Object.entries(variants)) {
      console.log(
        `variant ${name}: ${Object.entries(env)
          .map(([key, value]) => `${key}=${value}`)
          .join(' ')}`,
      );
    }
    console.log(`results: ${file}`);
    const failed = results.flatMap(failures);
    if (failed.length > 0) console.log(`FAIL: ${failed.join('; ')}`);
    return report.pass ? 0 : 1;
  } catch (error) {
    progress(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
    if (services.started().length > 0) progress(`service logs: ${join(outputDir, 'service.<variant>.log')}`);
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
