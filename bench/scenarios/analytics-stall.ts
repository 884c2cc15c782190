import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { api } from '../lib/api.js';
import { execute, queryNumber } from '../lib/db-query.js';
import { progress } from '../lib/measure.js';
import { percentile } from '../lib/metrics.js';
import type { MetricsScenario } from '../lib/scenario.js';
import { downloadDiscarding } from '../lib/transfer.js';
import { analyticsLocation, ensureAnalyticsDataset } from '../views/dataset.js';

/**
 * The prober: GET /healthz every 10 ms, timed in a thread of its own, so the bench's own work
 * (downloading an export, its garbage collection) delays no probe and is not measured.
 */
const PROBER = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const latencies = [];
const inFlight = new Set();
const probe = () => {
  const started = performance.now();
  const done = new Promise((resolve) => {
    http.get(workerData.url, { agent }, (response) => {
      response.resume();
      response.on('end', () => { latencies.push(performance.now() - started); resolve(); });
    }).on('error', () => resolve());
  });
  inFlight.add(done);
  done.then(() => inFlight.delete(done));
};
const timer = setInterval(probe, 10);
parentPort.once('message', async () => {
  clearInterval(timer);
  await Promise.all(inFlight);
  agent.destroy();
  parentPort.postMessage(latencies);
});
`;

/**
 * The worst latency of GET /healthz sent every 10 ms while `work` runs. The service answers it
 * at once unless its thread is busy, so the worst answer is the longest the service answered
 * nothing: its longest event-loop stall, plus a loopback round trip (the product has no
 * endpoint that reports its own event loop, and should not).
 */
async function probeWhile<T>(
  baseUrl: string,
  work: () => Promise<T>,
): Promise<{ worstMs: number; probes: number; latencies: number[]; value: T }> {
  const prober = new Worker(PROBER, { eval: true, workerData: { url: new URL('/healthz', baseUrl).href } });
  const stopped = async () => {
    const answer = once(prober, 'message');
    prober.postMessage('stop');
    const [latencies] = (await answer) as [number[]];
    await prober.terminate();
    return latencies;
  };
  let value: T;
  try {
    value = await work();
  } catch (error) {
    await stopped();
    throw error;
  }
  const latencies = await stopped();
  return { worstMs: Math.max(0, ...latencies), probes: latencies.length, latencies, value };
}

const ALL_VIEWS = '2000-01-01';

/**
 * What any key with analytics:read could once freeze the service with, against the dataset:
 * a year's JSON export with views, logs and summary (its tags log their views: access logging
 * is turned on for the run), /views and /logs at a huge offset, and the deletion of a tag as
 * large as the dataset's largest (a copy of that tag's views and own rollups under a new tag,
 * made behind the service's back before the probe starts, so the dataset stays as generated).
 */
export const analyticsStall: MetricsScenario = {
  kind: 'metrics',
  name: 'analytics-stall',
  description:
    'GET /healthz every 10 ms (worst latency: the event-loop stall + a loopback round trip) while a year JSON export with views+logs+summary, huge offsets and a deletion of a tag as large as the largest run',
  variant: 'analytics',
  async run(context) {
    const manifest = await ensureAnalyticsDataset(context.run);
    const location = analyticsLocation(context.run);
    const key = manifest.key;
    const largest = manifest.tagList[0]!;
    const start = manifest.firstDay;
    const end = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

    // Setup, outside the probe: the largest tag logs its views, and a copy of them under a new tag.
    await api(context.baseUrl, key, 'PUT', `/v1/tags/${largest.id}`, { body: { access_logging: true } });
    const copy = await api<{ id: string }>(context.baseUrl, key, 'POST', '/v1/tags', { body: { title: 'analytics-stall copy' } });
    const copied = await execute(
      location,
      `INSERT INTO views (id, tag_id, environment, owner_id, organization_id, occurred_at, source, visitor, device, browser, os,
         country, region, city, ip_masked, user_agent, referrer, logged, duration_seconds)
       SELECT 'view_stall' || substr(id, 5), ?, environment, owner_id, organization_id, occurred_at, source, visitor, device, browser,
         os, country, region, city, ip_masked, user_agent, referrer, logged, duration_seconds
       FROM views WHERE tag_id = ?`,
      [copy.id, largest.id],
    );
    // Its own rollups too (those no report of another tag or of the account reads), which the
    // deletion's last transaction deletes.
    for (const [table, columns] of [
      ['tag_hourly', 'hour, views, qr_scans, direct_visits, duration_sum, duration_count, unique_visitors'],
      ['tag_daily_dimensions', 'day, dimension, value, views'],
      ['tag_monthly_dimensions', 'month, dimension, value, views'],
      ['tag_day_visitors', 'day, visitors'],
      ['tag_visitor_days', 'day, visitor'],
    ] as const) {
      await execute(location, `INSERT INTO ${table} (tag_id, ${columns}) SELECT ?, ${columns} FROM ${table} WHERE tag_id = ?`, [
        copy.id,
        largest.id,
      ]);
    }
    progress(`  copied ${copied.toLocaleString('en-US')} views of ${largest.id}, and its own rollups, to ${copy.id}`);
    const expectedViews = await queryNumber(location, 'SELECT count(*) FROM views WHERE occurred_at >= ? AND occurred_at < ?', [
      `${start}T00:00:00.000Z`,
      `${end}T00:00:00.000Z`,
    ]);

    const steps: Array<{ step: string; worstMs: number; p99Ms: number; seconds: number; probes: number }> = [];
    const step = async (name: string, work: () => Promise<unknown>) => {
      const started = performance.now();
      const { worstMs, probes, latencies } = await probeWhile(context.baseUrl, work);
      const seconds = (performance.now() - started) / 1000;
      const p99Ms = latencies.length > 0 ? percentile(latencies, 99) : 0;
      steps.push({ step: name, worstMs, p99Ms, seconds, probes });
      progress(
        `  ${name}: /healthz worst ${worstMs.toFixed(1)} ms, p99 ${p99Ms.toFixed(1)} ms over ${probes} probes, ${seconds.toFixed(1)} s`,
      );
    };
    const headers = { authorization: `Bearer ${key}` };
    let exportedBytes = 0;
    await step('export json views+logs+summary', async () => {
      const url = new URL(
        `/v1/analytics/export?format=json&include=views,logs,summary&start_date=${start}&end_date=${end}`,
        context.baseUrl,
      );
      const transfer = await downloadDiscarding(url, headers);
      if (transfer.status !== 200) throw new Error(`export answered ${transfer.status}`);
      exportedBytes = transfer.bytes;
    });
    await step('views and logs at offset 9000000000000000', async () => {
      for (const path of ['views', 'logs']) {
        const response = await fetch(
          new URL(`/v1/tags/${largest.id}/analytics/${path}?offset=9000000000000000&start_date=${ALL_VIEWS}`, context.baseUrl),
          {
            headers,
          },
        );
        await response.text();
      }
    });
    await step(`deletion of a tag with ${copied.toLocaleString('en-US')} views`, () =>
      api(context.baseUrl, key, 'DELETE', `/v1/tags/${copy.id}`, { timeoutMs: 600_000 }),
    );
    await api(context.baseUrl, key, 'PUT', `/v1/tags/${largest.id}`, { body: { access_logging: false } });
    const left = await queryNumber(location, 'SELECT count(*) FROM views WHERE tag_id = ?', [copy.id]);

    const worst = Math.max(...steps.map((s) => s.worstMs));
    return {
      metrics: [
        { label: 'worst /healthz latency (stall + round trip)', value: worst, unit: 'ms', digits: 1, target: { op: '<=', value: 50 } },
        ...steps.flatMap((s) => [
          { label: `${s.step}: worst`, value: s.worstMs, unit: 'ms', digits: 1 },
          { label: `${s.step}: p99`, value: s.p99Ms, unit: 'ms', digits: 1 },
        ]),
        { label: 'views of the deleted tag left', value: left, unit: '', target: { op: '==', value: 0 } },
      ],
      details: { steps, copiedViews: copied, viewsInPeriod: expectedViews, exportedBytes },
    };
  },
};
