import type { BaselineScenario } from '../lib/scenario.js';
import { createBenchTag } from './tag-fixture.js';

/**
 * GET /t/{short_id} of a password-protected page, by a client holding the page's unlock cookie
 * and no User-Agent (so, like `page`, no view is recorded): what the password gate adds to a
 * served page (the cookie read and its MAC checked), to compare with `page`.
 */
export const pageLocked: BaselineScenario = {
  kind: 'baseline',
  name: 'page-locked',
  description: 'anonymous GET /t/{short_id} of a password-protected page with its unlock cookie (no view recorded)',
  maxCpuMultiple: { sqlite: 2 },
  async prepare(context) {
    const password = 'bench password';
    const { shortId } = await createBenchTag(context, { password });
    const unlocked = await fetch(new URL(`/t/${shortId}/unlock`, context.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password, via: 'page' }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    const cookie = unlocked.headers.get('set-cookie')?.split(';')[0];
    if (unlocked.status !== 303 || !cookie) throw new Error(`POST /t/${shortId}/unlock answered ${unlocked.status} without a cookie`);
    return { method: 'GET', path: `/t/${shortId}`, headers: { cookie } };
  },
};
