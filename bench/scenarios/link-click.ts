import { api, utcDay } from '../lib/api.js';
import { queryNumber } from '../lib/db-query.js';
import type { BaselineScenario } from '../lib/scenario.js';
import { analyticsLocation, ensureAnalyticsDataset } from '../views/dataset.js';
import { pageTag } from './analytics.js';
import { BROWSER, settled, VERIFY_REQUESTS } from './page-recording.js';

/** Where the bench's link sends its visitors; the load tool never follows it. */
const LINK_URL = 'https://example.com/bench-menu';

interface Block {
  id: string;
  type: string;
  url?: string;
}

/**
 * The page tag's link block to the bench's address: added once (a PUT through the API, as an
 * owner would), found again when a kept dataset has it already.
 */
async function benchLink(baseUrl: string, key: string, tagId: string): Promise<string> {
  const tag = await api<{ content: Block[] }>(baseUrl, key, 'GET', `/v1/tags/${tagId}`);
  const found = tag.content.find((block) => block.type === 'link' && block.url === LINK_URL);
  if (found) return found.id;
  const content = [...tag.content, { type: 'link', url: LINK_URL, label: 'Menu' }];
  const updated = await api<{ content: Block[] }>(baseUrl, key, 'PUT', `/v1/tags/${tagId}`, { body: { content } });
  return updated.content.find((block) => block.type === 'link' && block.url === LINK_URL)!.id;
}

/**
 * GET /t/{short_id}/l/{block_id} as a browser, on the page page-recording requests, in the same
 * generated 10-million-view database: every request commits its click to link_clicks before
 * the redirect is answered; then a check that every 302 stored exactly one click.
 */
export const linkClick: BaselineScenario = {
  kind: 'baseline',
  name: 'link-click',
  description: 'anonymous GET /t/{short_id}/l/{block_id} with a browser User-Agent (each click recorded, 302), generated analytics data',
  variant: 'analytics-worker',
  async prepare(context) {
    const manifest = await ensureAnalyticsDataset(context.run);
    const tag = pageTag(manifest);
    const blockId = await benchLink(context.baseUrl, manifest.key, tag.id);
    return { method: 'GET', path: `/t/${tag.shortId}/l/${blockId}`, headers: { 'user-agent': BROWSER } };
  },
  async verify(context, _request, load) {
    const manifest = await ensureAnalyticsDataset(context.run);
    const tag = pageTag(manifest);
    const location = analyticsLocation(context.run);
    const stored = () => queryNumber(location, 'SELECT count(*) FROM link_clicks WHERE tag_id = ?', [tag.id]);
    const reported = async () =>
      (
        await api<{ total_clicks: number }>(
          context.baseUrl,
          manifest.key,
          'GET',
          `/v1/tags/${tag.id}/analytics/clicks?start_date=${utcDay(0)}&end_date=${utcDay(1)}`,
        )
      ).total_clicks;
    // The clicks of the timed runs' last requests commit after the load tool stopped counting.
    const before = { stored: await settled(stored), reported: await reported() };
    const stats = await load(VERIFY_REQUESTS);
    const redirected = stats.statusCodes['302'] ?? 0;
    const after = { stored: await stored(), reported: await reported() };
    return [
      {
        label: 'clicks stored − 302 responses',
        value: after.stored - before.stored - redirected,
        unit: '',
        target: { op: '==', value: 0 },
      },
      {
        label: 'total_clicks (report) − 302 responses',
        value: after.reported - before.reported - redirected,
        unit: '',
        target: { op: '==', value: 0 },
      },
      { label: '302 responses', value: redirected, unit: '', target: { op: '==', value: VERIFY_REQUESTS } },
    ];
  },
};
