import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { KeyActor } from '../features/accounts/index.js';
import { Authenticator, type RoutePermission } from '../http/auth.js';
import { isPreflightRoute, registerCors } from '../http/cors.js';
import { refuseNul } from '../http/error-handler.js';
import { IdempotencyLayer } from '../http/idempotency.js';
import { documentRoute, OPENAPI_PATH } from '../http/openapi.js';
import { RateLimiter, type EndpointBucket } from '../http/rate-limiter.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import type { Services } from '../services.js';
import { analyticsRoutes } from './analytics.js';
import { analyticsShareRoutes } from './analytics-shares.js';
import { auditLogRoutes } from './audit-log.js';
import { fileRoutes } from './files.js';
import { folderRoutes } from './folders.js';
import { meRoutes } from './me.js';
import { tagRoutes } from './tags.js';
import { webhookRoutes } from './webhooks.js';

/**
 * An onRoute hook for the whole application: every /v1 operation declares its permission
 * (null for any valid key) and goes into the OpenAPI document. Added before the document's own
 * plugin, so the document sees each route as this hook completed it.
 */
export function checkApiRoute(route: RouteOptions): void {
  if (!route.url.startsWith('/v1/') || route.url === OPENAPI_PATH || isPreflightRoute(route)) return;
  if (route.config?.permission === undefined) {
    throw new Error(`${route.method} ${route.url} must declare config.permission (null for any valid key)`);
  }
  documentRoute(route);
}

/** The versioned API under /v1: keys, rate limits, CORS, Idempotency-Key, then each resource's routes. */
export async function registerApi(app: FastifyInstance, services: Services): Promise<void> {
  const { config } = services;
  // RATE_LIMITS=false lifts key limits (benchmarks, trusted on-premise); failed-auth limits stay.
  const limiter = new RateLimiter(services.limits, services.clock, {
    enforceKeyLimits: config.rateLimits,
    multiplier: config.rateLimitMultiplier,
  });
  const authenticator = new Authenticator(services, limiter);
  const idempotency = new IdempotencyLayer(services);
  app.decorateRequest('actor', null as unknown as KeyActor);
  await app.register(
    async (v1) => {
      // Every /v1 route gets the guard as its first onRequest hook, bound to the route's
      // permission and endpoint bucket once, when it is registered: reading them per request
      // (request.routeOptions) would build a new options object for every request. POST
      // routes also take Idempotency-Key. CORS's preflight (OPTIONS) is answered keyless.
      v1.addHook('onRoute', (route) => {
        if (isPreflightRoute(route)) return;
        const guard = routeGuard(authenticator, route.config?.permission ?? null, route.config?.rateLimit);
        route.onRequest = [guard, ...[route.onRequest ?? []].flat()];
        // Only where text reaches the handler: a body, or a query it declares. A GET without a
        // query schema ignores the query string, so a NUL there reaches nothing.
        if (route.schema?.querystring || !['GET', 'HEAD'].includes(String(route.method))) {
          route.preHandler = [refuseNul, ...[route.preHandler ?? []].flat()];
        }
        idempotency.addTo(route);
      });
      await registerCors(v1, config.corsOrigins);
      await v1.register(meRoutes);
      await v1.register(tagRoutes(services));
      await v1.register(folderRoutes(services));
      await v1.register(fileRoutes(services));
      await v1.register(webhookRoutes(services));
      await v1.register(analyticsRoutes(services));
      await v1.register(analyticsShareRoutes(services));
      await v1.register(auditLogRoutes(services));
    },
    { prefix: '/v1' },
  );
}

/**
 * The route's guard, bound to its permission and endpoint bucket. Callback style: most requests
 * pass it without anything to wait for (Authenticator.guard), and an async hook would cost each
 * a promise and a trip through the microtask queue.
 */
function routeGuard(authenticator: Authenticator, permission: RoutePermission, bucket: EndpointBucket | undefined) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    let passed: MaybePromise<void>;
    try {
      passed = authenticator.guard(request, reply, permission, bucket);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (passed instanceof Promise) passed.then(() => done(), done);
    else done();
  };
}
