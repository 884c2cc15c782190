import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import type { LoadSummary } from './load.js';

export interface ScenarioResult {
  name: string;
  description: string;
  request: { method: string; path: string };
  responseBytes: number;
  baseline: LoadSummary;
  service: LoadSummary;
  /** service req/s ÷ baseline req/s, from the means over all rounds. */
  ratio: number;
  /** The same ratio for each baseline/service pair on its own. */
  roundRatios: number[];
  targetRatio: number;
  pass: boolean;
}

export interface RunReport {
  startedAt: string;
  finishedAt: string;
  environment: { node: string; platform: string; cpu: string; cpuCount: number };
  settings: { durationSeconds: number; warmupSeconds: number; rounds: number; connections: number; logLevel: string; database: string };
  scenarios: ScenarioResult[];
  pass: boolean;
}

export function describeEnvironment(): RunReport['environment'] {
  const list = cpus();
  return { node: process.version, platform: `${process.platform}-${process.arch}`, cpu: list[0]?.model ?? 'unknown', cpuCount: list.length };
}

const number = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Left-aligns text columns and right-aligns numeric ones so figures line up by magnitude. */
function table(header: string[], rows: string[][], rightAligned: Set<number>): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function formatTable(results: ScenarioResult[]): string {
  const rows: string[][] = [];
  for (const r of results) {
    const cells = (target: string, s: LoadSummary) => [r.name, target, number(s.requestsPerSecond), number(s.latencyP50Ms, 2), number(s.latencyP99Ms, 2)];
    rows.push([...cells('baseline (node:http)', r.baseline), '', '', '']);
    rows.push([...cells('tagsvc', r.service), r.ratio.toFixed(3), `>= ${r.targetRatio}`, r.pass ? 'PASS' : 'FAIL']);
  }
  return table(['scenario', 'server', 'req/s (mean)', 'p50 ms', 'p99 ms', 'ratio', 'target', 'result'], rows, new Set([2, 3, 4, 5]));
}

export function writeReport(file: string, report: RunReport): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
