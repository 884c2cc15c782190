import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import type { Config } from '../config.js';
import { unauthorized } from '../errors.js';
import type { Metrics } from '../lib/metrics.js';

export const METRICS_PATH = '/metrics';

/**
 * Prometheus metrics of this process, when METRICS_TOKEN is set (docs/metrics.md). Every route
 * registered after this gets an onResponse hook bound to its pattern when it is registered: one
 * histogram observe per request, labelled with the pattern, never the URL, so ids and query
 * strings never become label values. GET /metrics answers a scrape that sends the token.
 * Without the token nothing is registered: /metrics is a 404 like any unknown path, and no
 * request does any work for metrics. Requests that match no route are not counted.
 */
export function installMetrics(app: FastifyInstance, config: Config, metrics: Metrics | undefined): void {
  const token = config.metricsToken;
  if (token === undefined || metrics === undefined) return;
  app.addHook('onRoute', (route) => {
    route.onResponse = [...[route.onResponse ?? []].flat(), observeRequest(metrics, route.url)];
  });
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) {
      throw unauthorized('Send the metrics token as Authorization: Bearer <METRICS_TOKEN>');
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

function observeRequest(metrics: Metrics, route: string): onResponseHookHandler {
  return (request, reply, done) => {
    metrics.requestDuration.observe({ route, method: request.method, status_code: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  };
}

/** Compares digests, so the time taken tells nothing of the token, not even its length. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}
