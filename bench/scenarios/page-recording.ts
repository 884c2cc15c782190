import { setTimeout } from 'node:timers/promises';
import { api, utcDay } from '../lib/api.js';
import { queryNumber } from '../lib/db-query.js';
import type { BaselineScenario } from '../lib/scenario.js';
import { analyticsLocation, ensureAnalyticsDataset } from '../views/dataset.js';
import { pageTag } from './analytics.js';

// A browser's user agent: the service counts views only from those (bots are served, not counted).
export const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
/** Requests of the exact count check, after the timed runs. */
export const VERIFY_REQUESTS = 2000;
const SETTLE_MS = 500;

/** `read`'s value once it holds still for SETTLE_MS. */
export async function settled(read: () => Promise<number>): Promise<number> {
  let last = await read();
  for (;;) {
    await setTimeout(SETTLE_MS);
    const now = await read();
    if (now === last) return now;
    last = now;
  }
}

/**
 * GET /t/{short_id} as a browser, so every request commits a view's record to the inbox before
 * it is answered, and the worker ingests them (raw rows, rollups, events) into the generated
 * 10-million-view database; then a check that every 200 stored exactly one view, no more and
 * no less.
 */
export const pageRecording: BaselineScenario = {
  kind: 'baseline',
  name: 'page-recording',
  description: 'anonymous GET /t/{short_id} with a browser User-Agent (each view recorded), generated analytics data',
  variant: 'analytics-worker',
  maxCpuMultiple: { sqlite: 2.5, postgres: 4 },
  async prepare(context) {
    const tag = pageTag(await ensureAnalyticsDataset(context.run));
    return { method: 'GET', path: `/t/${tag.shortId}`, headers: { 'user-agent': BROWSER } };
  },
  async verify(context, _request, load) {
    const manifest = await ensureAnalyticsDataset(context.run);
    const tag = pageTag(manifest);
    const location = analyticsLocation(context.run);
    // Stored durably: the views rows, and the records of the inbox not ingested yet.
    const records = location.databaseUrl ? 'jsonb_array_elements(i.records)' : 'json_each(i.records)';
    const stored = () =>
      queryNumber(
        location,
        `SELECT (SELECT count(*) FROM views WHERE tag_id = ?) + (SELECT count(*) FROM view_inbox i, ${records} r WHERE r.value ->> 1 = ?)`,
        [tag.id, tag.id],
      );
    // The report reads the rollups, the count above the raw rows: both must follow.
    const reported = async () =>
      (
        await api<{ summary: { total_views: number } }>(
          context.baseUrl,
          manifest.key,
          'GET',
          `/v1/tags/${tag.id}/analytics?start_date=${utcDay(0)}&end_date=${utcDay(1)}`,
        )
      ).summary.total_views;
    // The timed runs end with requests in flight, whose views commit after the load tool has
    // stopped counting their answers: the count starts once they have all landed.
    const before = { stored: await settled(stored), reported: await reported() };
    const stats = await load(VERIFY_REQUESTS);
    const ok = stats.statusCodes['200'] ?? 0;
    const after = { stored: await stored(), reported: await reported() };
    return [
      { label: 'views stored − 200 responses', value: after.stored - before.stored - ok, unit: '', target: { op: '==', value: 0 } },
      {
        label: 'total_views (report) − 200 responses',
        value: after.reported - before.reported - ok,
        unit: '',
        target: { op: '==', value: 0 },
      },
    ];
  },
};
