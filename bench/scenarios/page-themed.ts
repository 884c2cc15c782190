import type { BaselineScenario } from '../lib/scenario.js';
import { createBenchTag } from './tag-fixture.js';

/**
 * GET /t/{short_id} of a themed page (a preset and an accent of the owner's), without a
 * User-Agent (so, like `page`, no view is recorded): what a theme adds to a served page (its
 * class, its accent's stylesheet link, the preview image's tags: bytes of a page rendered once
 * per version), to compare with `page`.
 */
export const pageThemed: BaselineScenario = {
  kind: 'baseline',
  name: 'page-themed',
  description: 'anonymous GET /t/{short_id} of a page in the bold preset with an accent of its own (no view recorded)',
  maxCpuMultiple: { sqlite: 2 },
  async prepare(context) {
    const { shortId } = await createBenchTag(context, { theme: { preset: 'bold', accent_color: '#0e8a7d' } });
    return { method: 'GET', path: `/t/${shortId}` };
  },
};
