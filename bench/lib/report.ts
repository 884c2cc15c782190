import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import type { LoadSummary } from './load.js';
import type { JudgedMetric } from './metrics.js';

/** PASS or FAIL against the scenario's target; `report` when it has none. */
export type Verdict = 'PASS' | 'FAIL' | 'report';

interface ResultCommon {
  name: string;
  description: string;
  verdict: Verdict;
  /** Whether the target is met; null when there is none. */
  pass: boolean | null;
}

export interface BaselineResult extends ResultCommon {
  kind: 'baseline';
  variant: string;
  request: { method: string; path: string };
  responseBytes: number;
  baseline: LoadSummary;
  service: LoadSummary;
  /** service req/s ÷ baseline req/s, from the means over all slices. */
  ratio: number;
  /** The same ratio for each pair of slices (measured back to back) on its own. */
  roundRatios: number[];
  /** The service's CPU per request ÷ the baseline's: the figure the scenario is judged by. */
  cpuMultiple: number;
  /** The same multiple for each pair of slices on its own. */
  roundCpuMultiples: number[];
  maxCpuMultiple: number | null;
  /** What the scenario verified after the measurement (e.g. views stored = 200 responses). */
  checks: JudgedMetric[];
}

export interface ComparisonResult extends ResultCommon {
  kind: 'comparison';
  request: { method: string; path: string };
  responseBytes: number;
  reference: { variant: string; label: string; load: LoadSummary };
  candidate: { variant: string; label: string; load: LoadSummary };
  /** Throughput the candidate loses, in % of the reference's (negative: it was faster), from the means. */
  costPercent: number;
  /** The same for each reference/candidate pair on its own. */
  roundCostPercents: number[];
  maxCostPercent: number | null;
}

export interface RateResult extends ResultCommon {
  kind: 'rate';
  unit: string;
  operationsPerSecond: number;
  operations: number;
  seconds: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
}

export interface MetricsResult extends ResultCommon {
  kind: 'metrics';
  variant: string;
  metrics: JudgedMetric[];
  /** Whatever else the scenario wants on record (counts, sizes, timings). */
  details: Record<string, unknown>;
}

export type ScenarioResult = BaselineResult | ComparisonResult | RateResult | MetricsResult;

export interface RunReport {
  startedAt: string;
  finishedAt: string;
  environment: {
    node: string;
    platform: string;
    cpu: string;
    cpuCount: number;
    /**
     * 1-minute load average before the first scenario and after the last. Above a fraction of
     * cpuCount at the start, something else was running and the figures are suspect.
     */
    loadAverage: { start: number; end: number };
  };
  settings: {
    durationSeconds: number;
    warmupSeconds: number;
    rounds: number;
    /** Seconds per slice (the last one of a side may be shorter), and slices per side. */
    sliceSeconds: number;
    baselineSlices: number;
    comparisonSlices: number;
    qrSeconds: number;
    connections: number;
    fileMb: number;
    webhookEvents: number;
    analyticsViews: number;
    analyticsTags: number;
    logLevel: string;
    database: string;
    /** The settings of each service variant started, passwords masked. */
    variants: Record<string, Record<string, string>>;
  };
  scenarios: ScenarioResult[];
  /** Every scenario with a target meets it. */
  pass: boolean;
}

export function verdict(pass: boolean | null): Verdict {
  return pass === null ? 'report' : pass ? 'PASS' : 'FAIL';
}

export function describeEnvironment(loadAverageAtStart: number): RunReport['environment'] {
  const list = cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: list[0]?.model ?? 'unknown',
    cpuCount: list.length,
    loadAverage: { start: loadAverageAtStart, end: loadavg()[0]! },
  };
}

const number = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function metricValue(m: JudgedMetric): string {
  const digits = m.digits ?? (Math.abs(m.value) < 10 && !Number.isInteger(m.value) ? 2 : 0);
  return `${Number.isNaN(m.value) ? 'n/a' : number(m.value, digits)}${m.unit ? ` ${m.unit}` : ''}`;
}

function metricTarget(m: JudgedMetric): string {
  return m.target ? `${m.target.op === '==' ? '=' : m.target.op} ${number(m.target.value)}${m.unit ? ` ${m.unit}` : ''}` : '-';
}

/** Left-aligns text columns and right-aligns numeric ones so figures line up by magnitude. */
function table(header: string[], rows: string[][], rightAligned: Set<number>): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The figure a scenario is judged by, as the table and the FAIL line print it. */
export function figure(r: ScenarioResult): { value: string; target: string } {
  switch (r.kind) {
    case 'baseline':
      return { value: `CPU ${r.cpuMultiple.toFixed(2)}×`, target: r.maxCpuMultiple === null ? '-' : `<= ${r.maxCpuMultiple}×` };
    case 'comparison':
      return { value: `cost ${r.costPercent.toFixed(1)} %`, target: r.maxCostPercent === null ? '-' : `< ${r.maxCostPercent} %` };
    case 'rate':
      return { value: `${number(r.operationsPerSecond)} ${r.unit}/s`, target: '-' };
    case 'metrics': {
      // The first figure that misses its target, else the first with one.
      const m = r.metrics.find((x) => x.pass === false) ?? r.metrics.find((x) => x.pass !== null) ?? r.metrics[0];
      return m ? { value: `${m.label} ${metricValue(m)}`, target: metricTarget(m) } : { value: '-', target: '-' };
    }
  }
}

/** Every figure of a result that misses its target, for the FAIL line. */
export function failures(r: ScenarioResult): string[] {
  const checks = r.kind === 'baseline' ? r.checks : r.kind === 'metrics' ? r.metrics : [];
  const failed = checks.filter((m) => m.pass === false).map((m) => `${r.name} ${m.label} ${metricValue(m)}, target ${metricTarget(m)}`);
  const own =
    r.kind === 'baseline' ? r.maxCpuMultiple !== null && r.cpuMultiple > r.maxCpuMultiple : r.kind === 'comparison' && r.pass === false;
  if (own) failed.unshift(`${r.name} ${figure(r).value}, target ${figure(r).target}`);
  return failed;
}

/** The rows of one result: one per measured thing, the figure and verdict on the last. */
function rows(r: ScenarioResult): string[][] {
  const load = (what: string, s: LoadSummary) => [
    r.name,
    what,
    number(s.requestsPerSecond),
    number(s.cpuMicrosPerRequest, 1),
    number(s.latencyP50Ms, 2),
    number(s.latencyP99Ms, 2),
  ];
  const { value, target } = figure(r);
  const judged = [value, target, r.verdict];
  switch (r.kind) {
    case 'baseline': {
      const multiplePass = r.maxCpuMultiple === null ? null : r.cpuMultiple <= r.maxCpuMultiple;
      return [
        [...load('baseline (node:http)', r.baseline), '', '', ''],
        [...load(r.variant === 'default' ? 'tagsvc' : `tagsvc, ${r.variant}`, r.service), value, target, verdict(multiplePass)],
        [r.name, 'throughput ratio (reported)', '', '', '', '', `ratio ${r.ratio.toFixed(3)}`, '', ''],
        ...r.checks.map((m) => [r.name, m.label, '', '', '', '', metricValue(m), metricTarget(m), verdict(m.pass)]),
      ];
    }
    case 'comparison':
      return [
        [...load(`tagsvc, ${r.reference.label}`, r.reference.load), '', '', ''],
        [...load(`tagsvc, ${r.candidate.label}`, r.candidate.load), ...judged],
      ];
    case 'rate':
      return [
        [
          r.name,
          `in-process, ${r.unit}`,
          number(r.operationsPerSecond),
          '',
          number(r.latencyP50Ms, 2),
          number(r.latencyP99Ms, 2),
          ...judged,
        ],
      ];
    case 'metrics':
      return r.metrics.map((m) => [r.name, m.label, '', '', '', '', metricValue(m), metricTarget(m), verdict(m.pass)]);
  }
}

export function formatTable(results: ScenarioResult[]): string {
  return table(
    ['scenario', 'measured', 'per s (mean)', 'CPU µs/req', 'p50 ms', 'p99 ms', 'figure', 'target', 'result'],
    results.flatMap(rows),
    new Set([2, 3, 4, 5]),
  );
}

export function writeReport(file: string, report: RunReport): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
