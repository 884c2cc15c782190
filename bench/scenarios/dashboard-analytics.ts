import { utcDay } from '../lib/api.js';
import { latencyMetrics, type Metric } from '../lib/metrics.js';
import type { MetricsScenario } from '../lib/scenario.js';
import { ensureAnalyticsDataset } from '../views/dataset.js';
import { Cookies, page, submit, timePage } from './dashboard.js';

const REQUESTS_PER_PAGE = 200;
/** "Every dashboard page p95 ≤ 100 ms on the 10-million-view dataset." */
const P95_TARGET_MS = 100;

/**
 * The dashboard's analytics pages on the generated dataset, signed in as its account (which
 * owns every view): the overview and the most viewed tag's analytics, for the default 30 days
 * and for the last 12 months (the pages' longest quick period), and that tag's own page. Each
 * is asked for REQUESTS_PER_PAGE times, one after another.
 */
export const dashboardAnalytics: MetricsScenario = {
  kind: 'metrics',
  name: 'dashboard-analytics',
  description: `the dashboard's analytics pages and a tag's page, ${REQUESTS_PER_PAGE} GETs each one after another, signed in to the account of the generated analytics dataset`,
  variant: 'analytics',
  async run({ baseUrl, run }) {
    const manifest = await ensureAnalyticsDataset(run);
    const cookies = new Cookies();
    await submit(baseUrl, cookies, '/dashboard/login', await page(baseUrl, cookies, '/dashboard/login'), [
      ['email', manifest.email],
      ['password', 'bench-password'],
    ]);
    const largest = manifest.tagList[0]!;
    const tag = `/dashboard/tags/${largest.id}`;
    const year = `from=${utcDay(-364)}&to=${utcDay(0)}`;
    const pages = ['/dashboard/analytics', `/dashboard/analytics?${year}`, `${tag}/analytics`, `${tag}/analytics?${year}`, tag];

    const metrics: Metric[] = [];
    for (const path of pages) {
      const timings = await timePage(baseUrl, cookies, path, REQUESTS_PER_PAGE);
      metrics.push(...latencyMetrics(`GET ${path.replace(largest.id, '{largest tag}')}`, timings, { p95: P95_TARGET_MS }));
    }
    return { metrics, details: { views: manifest.views, tag: largest, requestsPerPage: REQUESTS_PER_PAGE } };
  },
};
