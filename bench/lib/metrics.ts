/** A figure a scenario reports, optionally judged against a target. */
export interface Metric {
  /** What was measured, for the table: "upload". */
  label: string;
  value: number;
  /** "MB/s", "ms", "" for counts. */
  unit: string;
  /** Decimals to print (default: 0, or 2 below 10). */
  digits?: number;
  target?: { op: '>=' | '<=' | '<' | '=='; value: number };
}

export interface JudgedMetric extends Metric {
  /** Whether the target is met; null without one. */
  pass: boolean | null;
}

export function judge(metric: Metric): JudgedMetric {
  const { target } = metric;
  if (!target) return { ...metric, pass: null };
  const pass =
    target.op === '>='
      ? metric.value >= target.value
      : target.op === '<='
        ? metric.value <= target.value
        : target.op === '<'
          ? metric.value < target.value
          : metric.value === target.value;
  return { ...metric, pass };
}

/** All judged metrics pass; null when none has a target. */
export function allPass(metrics: JudgedMetric[]): boolean | null {
  const judged = metrics.filter((m) => m.pass !== null);
  return judged.length === 0 ? null : judged.every((m) => m.pass);
}

/** Percentile (nearest rank) of unsorted values; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** p50, p95 and p99 of `values` as metrics named `${label} p50` etc.; `p95Target` judges the p95. */
export function latencyMetrics(label: string, valuesMs: number[], targets: { p50?: number; p95?: number } = {}): Metric[] {
  return [
    {
      label: `${label} p50`,
      value: percentile(valuesMs, 50),
      unit: 'ms',
      digits: 1,
      ...(targets.p50 !== undefined ? { target: { op: '<=', value: targets.p50 } } : {}),
    },
    {
      label: `${label} p95`,
      value: percentile(valuesMs, 95),
      unit: 'ms',
      digits: 1,
      ...(targets.p95 !== undefined ? { target: { op: '<=', value: targets.p95 } } : {}),
    },
    { label: `${label} p99`, value: percentile(valuesMs, 99), unit: 'ms', digits: 1 },
  ];
}
