import type { BaselineScenario } from '../lib/scenario.js';

/**
 * GET /v1/me: the cheapest authenticated route, so it measures the fixed cost every API call
 * pays (routing, key lookup, envelope serialisation) and little else.
 */
export const me: BaselineScenario = {
  kind: 'baseline',
  name: 'me',
  description: 'authenticated GET /v1/me (enterprise key)',
  maxCpuMultiple: { sqlite: 1.7, postgres: 2 },
  async prepare({ createAccount }) {
    const account = await createAccount('enterprise');
    return { method: 'GET', path: '/v1/me', headers: { authorization: `Bearer ${account.key}` } };
  },
};
