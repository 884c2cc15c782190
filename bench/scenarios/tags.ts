import type { BaselineScenario } from '../lib/scenario.js';
import { createBenchTag, pageBody } from './tag-fixture.js';

/** GET /v1/tags/{id}: one tag read by its owner, the API's most common call. */
export const tag: BaselineScenario = {
  kind: 'baseline',
  name: 'tag',
  description: 'authenticated GET /v1/tags/{id} (4 content blocks)',
  maxCpuMultiple: { sqlite: 2 },
  async prepare(context) {
    const { id, key } = await createBenchTag(context);
    return { method: 'GET', path: `/v1/tags/${id}`, headers: { authorization: `Bearer ${key}` } };
  },
};

/** GET /t/{short_id}: the public HTML page, what most traffic from scanned codes lands on. */
export const page: BaselineScenario = {
  kind: 'baseline',
  name: 'page',
  description: 'anonymous GET /t/{short_id} (public page, HTML; no User-Agent: a bot request, counted in memory, no view)',
  maxCpuMultiple: { sqlite: 2 },
  async prepare(context) {
    const { shortId } = await createBenchTag(context);
    return { method: 'GET', path: `/t/${shortId}` };
  },
};

/**
 * GET /v1/tags/{id}/qr: after the first request the image comes from the service's cache, so
 * this is the route's own cost (the tag lookup, a qr.generated event written per request), not
 * rendering (see qr-render-*).
 * Its endpoint bucket allows 30 a minute: only the default variant, limits off, can run it.
 */
export const tagQr: BaselineScenario = {
  kind: 'baseline',
  name: 'tag-qr',
  description: 'authenticated GET /v1/tags/{id}/qr, PNG 512 px, cached',
  variant: 'default',
  async prepare(context) {
    const { id, key } = await createBenchTag(context);
    return { method: 'GET', path: `/v1/tags/${id}/qr?format=png&size=512`, headers: { authorization: `Bearer ${key}` } };
  },
};

/**
 * PUT /v1/tags/{id}: the same update over and over, a tag's most common change. Each request
 * writes the row, its tag.updated event and its audit log entry in one transaction (#35: the
 * audit entry may add at most 10 % to the CPU of an update).
 */
export const tagUpdate: BaselineScenario = {
  kind: 'baseline',
  name: 'tag-update',
  description: 'authenticated PUT /v1/tags/{id} (title and 4 content blocks; row, event and audit entry)',
  async prepare(context) {
    const { id, key } = await createBenchTag(context);
    return {
      method: 'PUT',
      path: `/v1/tags/${id}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(pageBody('Conference room B — equipment, booking and access')),
    };
  },
};
