import { performance } from 'node:perf_hooks';
import { api, utcDay } from '../lib/api.js';
import { queryNumber } from '../lib/db-query.js';
import { latencyMetrics, percentile, type Metric } from '../lib/metrics.js';
import { progress } from '../lib/measure.js';
import type { MetricsScenario, ScenarioContext } from '../lib/scenario.js';
import { downloadDiscarding } from '../lib/transfer.js';
import { analyticsLocation, ensureAnalyticsDataset } from '../views/dataset.js';
import type { DatasetManifest } from '../views/generate.js';

/** The year the targets speak of: today and the 364 days before it, end exclusive. */
function year() {
  return { start: utcDay(-364), end: utcDay(1) };
}

/**
 * The last 182 days, whose previous period (compare=previous) is the 182 days before, full of
 * views: a year's previous period falls before the generated data and reads empty rollups.
 */
function halfYear() {
  return { start: utcDay(-181), end: utcDay(1) };
}

/**
 * The tags the per-tag report is asked about: the ten most viewed (the expensive reports) and
 * ten spread over the rest by rank. The least viewed tag is left out: page-recording adds views
 * to it, and these checks compare against the database as it is.
 */
export function sampleTags(manifest: DatasetManifest): DatasetManifest['tagList'] {
  const list = manifest.tagList.slice(0, -1);
  const top = list.slice(0, 10);
  const rest = list.slice(10);
  const spread = Array.from(
    { length: Math.min(10, rest.length) },
    (_, i) => rest[Math.floor((i * rest.length) / Math.min(10, rest.length))]!,
  );
  return [...top, ...spread];
}

/** The least viewed tag: its page is the one page-recording requests. */
export function pageTag(manifest: DatasetManifest) {
  return manifest.tagList.at(-1)!;
}

async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await call();
  return { ms: performance.now() - started, value };
}

/** Each breakdown: a record of counts, or by_city's list. All of them add up to the period's views. */
type Counts = Record<string, number>;
const sum = (counts: Counts) => Object.values(counts).reduce((a, b) => a + b, 0);

interface TagReport {
  summary: { total_views: number; unique_views: number };
  previous?: { summary: { total_views: number } };
  by_device: Counts;
  by_referrer: Counts;
  by_os: Counts;
  by_city: Array<{ views: number }>;
  by_utm_source: Counts;
  timeseries: unknown[];
}

/**
 * The targets are for the report with every breakdown and `compare=previous` (the
 * figures of the year before besides); the report without the comparison is measured beside
 * it, the requests taking turns, so the comparison's cost shows.
 */
const COMPARED = '&compare=previous';

/** The views of a period that count as `direct` in by_referrer (dimensions.ts): all but kept referrals. */
const DIRECT_VIEWS = "sum(CASE WHEN source = 'referral' AND referrer IS NOT NULL THEN 0 ELSE 1 END)";

export const analyticsTagYear: MetricsScenario = {
  kind: 'metrics',
  name: 'analytics-tag-year',
  description:
    'GET /v1/tags/{id}/analytics for a year at day granularity, every breakdown, with compare=previous and without, and 182 days with compare=previous, by turns, 20 tags (top 10 and a spread), 200 requests of each one after another, then each checked against the raw views',
  variant: 'analytics',
  async run(context: ScenarioContext) {
    const manifest = await ensureAnalyticsDataset(context.run);
    const { start, end } = year();
    const tags = sampleTags(manifest);
    const path = (id: string, extra: string, period = { start, end }) =>
      `/v1/tags/${id}/analytics?start_date=${period.start}&end_date=${period.end}&granularity=day${extra}`;
    const get = (id: string, extra = COMPARED, period?: { start: string; end: string }) =>
      api<TagReport>(context.baseUrl, manifest.key, 'GET', path(id, extra, period), { timeoutMs: 120_000 });
    // Warm-up: the route's code paths, on the smallest report.
    await get(tags.at(-1)!.id);
    await get(tags.at(-1)!.id, '');

    const popular: number[] = [];
    const others: number[] = [];
    const plain: number[] = [];
    const half: number[] = [];
    const requests = 200;
    for (let i = 0; i < requests; i++) {
      const tag = tags[i % tags.length]!;
      const { ms } = await timed(() => get(tag.id));
      (i % tags.length < 10 ? popular : others).push(ms);
      plain.push((await timed(() => get(tag.id, ''))).ms);
      half.push((await timed(() => get(tag.id, COMPARED, halfYear()))).ms);
      if ((i + 1) % 50 === 0) progress(`  ${i + 1}/${requests} requests of each`);
    }
    // After the timed requests: the check's scans of millions of raw views would otherwise
    // evict the rollups from the database's cache between timed requests.
    const location = analyticsLocation(context.run);
    let wrongTotals = 0;
    for (const tag of tags) {
      const value = await get(tag.id);
      // The report's totals against the raw views the database holds for the same period.
      const range = [tag.id, `${start}T00:00:00.000Z`, `${end}T00:00:00.000Z`];
      const inRange = 'FROM views WHERE tag_id = ? AND occurred_at >= ? AND occurred_at < ?';
      const stored = await queryNumber(location, `SELECT count(*) ${inRange}`, range);
      const visitors = await queryNumber(location, `SELECT count(DISTINCT visitor) ${inRange}`, range);
      const direct = await queryNumber(location, `SELECT ${DIRECT_VIEWS} ${inRange}`, range);
      const previous = await queryNumber(location, `SELECT count(*) FROM views WHERE tag_id = ? AND occurred_at >= ? AND occurred_at < ?`, [
        tag.id,
        `${utcDay(-364 - 365)}T00:00:00.000Z`,
        `${start}T00:00:00.000Z`,
      ]);
      const breakdowns = {
        device: sum(value.by_device),
        referrer: sum(value.by_referrer),
        os: sum(value.by_os),
        city: value.by_city.reduce((a, b) => a + b.views, 0),
        utm_source: sum(value.by_utm_source),
      };
      if (
        value.summary.total_views !== stored ||
        Object.values(breakdowns).some((n) => n !== stored) ||
        (value.by_referrer.direct ?? 0) !== direct ||
        value.previous?.summary.total_views !== previous ||
        value.summary.unique_views !== visitors ||
        value.timeseries.length !== 365
      ) {
        wrongTotals++;
        progress(
          `  ${tag.id}: total_views ${value.summary.total_views}, stored ${stored}, breakdowns ${JSON.stringify(breakdowns)}, direct ${value.by_referrer.direct} (stored ${direct}), ` +
            `previous ${value.previous?.summary.total_views} (stored ${previous}), unique_views ${value.summary.unique_views}, distinct visitors ${visitors}, ${value.timeseries.length} days`,
        );
      }
    }
    const all = [...popular, ...others];
    return {
      metrics: [
        ...latencyMetrics('all tags, compare=previous', all, { p95: 50 }),
        { label: 'top 10 tags p95, compare=previous', value: percentile(popular, 95), unit: 'ms', digits: 1 },
        { label: 'other tags p95, compare=previous', value: percentile(others, 95), unit: 'ms', digits: 1 },
        ...latencyMetrics('all tags, no comparison', plain, { p95: 50 }),
        ...latencyMetrics('all tags, 182 days compared with the 182 before', half),
        {
          label: 'reports whose totals, breakdowns, previous period or unique visitors differ from the stored views',
          value: wrongTotals,
          unit: '',
          target: { op: '==', value: 0 },
        },
      ],
      details: {
        requests,
        period: { start, end },
        tags: tags.map((t) => ({ id: t.id, generatedViews: t.views })),
        maxMs: Math.max(...all, ...plain, ...half),
      },
    };
  },
};

interface Overview {
  totals: { views: number; unique_views: number };
  previous?: { totals: { views: number } };
  by_day: unknown[];
  by_referrer: Counts;
  by_utm_source: Counts;
}

export const analyticsOverview: MetricsScenario = {
  kind: 'metrics',
  name: 'analytics-overview',
  description:
    'GET /v1/analytics/overview for a year with compare=previous and without, and 182 days with compare=previous, by turns, 50 requests of each one after another; totals and breakdowns checked against the raw views',
  variant: 'analytics',
  async run(context) {
    const manifest = await ensureAnalyticsDataset(context.run);
    const { start, end } = year();
    const get = (extra = COMPARED, period = { start, end }) =>
      api<Overview>(
        context.baseUrl,
        manifest.key,
        'GET',
        `/v1/analytics/overview?start_date=${period.start}&end_date=${period.end}${extra}`,
        { timeoutMs: 120_000 },
      );
    const first = await get();
    const location = analyticsLocation(context.run);
    const range = [`${start}T00:00:00.000Z`, `${end}T00:00:00.000Z`];
    const inRange = 'FROM views WHERE occurred_at >= ? AND occurred_at < ?';
    const stored = await queryNumber(location, `SELECT count(*) ${inRange}`, range);
    // Every tag is the key's: its distinct visitors are those of every stored view.
    const visitors = await queryNumber(location, `SELECT count(DISTINCT visitor) ${inRange}`, range);
    const direct = await queryNumber(location, `SELECT ${DIRECT_VIEWS} ${inRange}`, range);
    const previous = await queryNumber(location, `SELECT count(*) ${inRange}`, [`${utcDay(-364 - 365)}T00:00:00.000Z`, range[0]!]);
    const compared: number[] = [];
    const plain: number[] = [];
    const half: number[] = [];
    for (let i = 0; i < 50; i++) {
      compared.push((await timed(() => get())).ms);
      plain.push((await timed(() => get(''))).ms);
      half.push((await timed(() => get(COMPARED, halfYear()))).ms);
    }
    return {
      metrics: [
        ...latencyMetrics('overview, compare=previous', compared, { p95: 100 }),
        ...latencyMetrics('overview, no comparison', plain, { p95: 100 }),
        ...latencyMetrics('overview, 182 days compared with the 182 before', half),
        { label: 'totals.views − stored views', value: first.totals.views - stored, unit: '', target: { op: '==', value: 0 } },
        {
          label: 'totals.unique_views − distinct visitors stored',
          value: first.totals.unique_views - visitors,
          unit: '',
          target: { op: '==', value: 0 },
        },
        { label: 'by_referrer − stored views', value: sum(first.by_referrer) - stored, unit: '', target: { op: '==', value: 0 } },
        {
          label: 'by_referrer.direct − stored direct views',
          value: (first.by_referrer.direct ?? 0) - direct,
          unit: '',
          target: { op: '==', value: 0 },
        },
        { label: 'by_utm_source − stored views', value: sum(first.by_utm_source) - stored, unit: '', target: { op: '==', value: 0 } },
        {
          label: 'previous.totals.views − stored views of the year before',
          value: (first.previous?.totals.views ?? Number.NaN) - previous,
          unit: '',
          target: { op: '==', value: 0 },
        },
      ],
      details: { requests: compared.length, period: { start, end }, totalViews: first.totals.views, days: first.by_day.length },
    };
  },
};

export const analyticsExport: MetricsScenario = {
  kind: 'metrics',
  name: 'analytics-export',
  description: 'GET /v1/analytics/export?format=csv for a year (one row per tag and day), streamed: rows/s',
  variant: 'analytics',
  async run(context) {
    const manifest = await ensureAnalyticsDataset(context.run);
    const { start, end } = year();
    const expected = await queryNumber(
      analyticsLocation(context.run),
      'SELECT count(*) FROM tag_daily WHERE day >= ? AND day < ? AND views > 0',
      [start, end],
    );
    const url = new URL(`/v1/analytics/export?format=csv&start_date=${start}&end_date=${end}`, context.baseUrl);
    const runs = 3;
    const rates: number[] = [];
    const seconds: number[] = [];
    let rows = 0;
    for (let i = 1; i <= runs; i++) {
      const transfer = await downloadDiscarding(url, { authorization: `Bearer ${manifest.key}` }, { countLines: true });
      if (transfer.status !== 200) throw new Error(`export answered ${transfer.status}`);
      rows = transfer.lines - 1;
      rates.push(rows / transfer.seconds);
      seconds.push(transfer.seconds);
      progress(
        `  export ${i}/${runs}: ${rows.toLocaleString('en-US')} rows, ${(transfer.bytes / 1_048_576).toFixed(1)} MB in ${transfer.seconds.toFixed(2)} s (first byte after ${(transfer.firstByteSeconds * 1000).toFixed(0)} ms)`,
      );
    }
    const metrics: Metric[] = [
      { label: `CSV rows (median of ${runs})`, value: percentile(rates, 50), unit: 'rows/s', target: { op: '>=', value: 50_000 } },
      { label: 'rows − tag/day rows stored', value: rows - expected, unit: '', target: { op: '==', value: 0 } },
    ];
    return { metrics, details: { rows, expected, seconds, rowsPerSecond: rates, period: { start, end } } };
  },
};
