import type { ComparisonScenario } from '../lib/scenario.js';

/**
 * What the rate limiter costs on the cheapest route, where its share of the work is largest:
 * GET /v1/me with limits off against the same request, same key, with limits on.
 */
function limiterCost(name: string, candidate: ComparisonScenario['candidate'], store: string, maxCostPercent?: number): ComparisonScenario {
  return {
    kind: 'comparison',
    name,
    description: `GET /v1/me, rate limits on (${store} store) against off`,
    reference: 'default',
    candidate,
    maxCostPercent,
    async prepare({ createAccount }) {
      // A key of its own: counters left by another scenario would not change the cost, but a
      // fresh key keeps each scenario's figures independent of the order they run in.
      const account = await createAccount('enterprise');
      return { method: 'GET', path: '/v1/me', headers: { authorization: `Bearer ${account.key}` } };
    },
    check({ reference, candidate: answer }) {
      // The limiter sets these headers on every request it counts: without them the variant's
      // settings did not take, and the comparison would measure nothing.
      if (!answer.headers['x-ratelimit-limit'])
        throw new Error(`${name}: no x-ratelimit-limit header with limits on; is RATE_LIMITS taken?`);
      if (reference.headers['x-ratelimit-limit']) throw new Error(`${name}: x-ratelimit-limit header with limits off`);
    },
  };
}

export const limiterMemory = limiterCost('limiter-memory', 'limiter-memory', 'memory', 10);
// No target: a network round trip per request is the price of limits shared between instances.
export const limiterRedis = limiterCost('limiter-redis', 'limiter-redis', 'Redis');
