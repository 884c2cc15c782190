import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { dashboardRoutes } from './dashboard/routes.js';
import { meRoutes, type KeyActor } from './features/accounts/index.js';
import { analyticsRoutes, Tracker, ViewRecorder } from './features/analytics/index.js';
import { fileRoutes, publicFileRoutes } from './features/files/index.js';
import { folderRoutes } from './features/folders/index.js';
import { healthRoutes } from './features/health/index.js';
import { pageRoutes } from './public/pages.js';
import { tagRoutes } from './features/tags/index.js';
import { webhookRoutes } from './features/webhooks/index.js';
import { Authenticator, type RoutePermission } from './http/auth.js';
import { isPreflightRoute, registerCors } from './http/cors.js';
import { clientError, frameworkError, installErrorHandling, refuseNul } from './http/error-handler.js';
import { closeConnectionsOnClose } from './http/graceful-close.js';
import { IdempotencyLayer } from './http/idempotency.js';
import { RequestLogController, requestLogger } from './http/logging.js';
import { installMetrics } from './http/metrics.js';
import { documentRoute, OPENAPI_PATH, registerOpenApi } from './http/openapi.js';
import { RateLimiter, type EndpointBucket } from './http/rate-limiter.js';
import { timeoutOptions, watchIdleSockets } from './http/timeouts.js';
import { installValidation } from './http/validation.js';
import { newId } from './lib/ids.js';
import type { MaybePromise } from './lib/maybe-promise.js';
import { handleInTurnBatches } from './perf/turn-batches.js';
import type { Services } from './services.js';

const JSON_BODY_LIMIT = 1024 * 1024;

/** Builds the HTTP application: cross-cutting plugins, then every feature's routes. */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config, database } = services;
  const app = Fastify({
    loggerInstance: services.log,
    genReqId: () => newId('req'),
    logController: new RequestLogController(),
    childLoggerFactory: requestLogger,
    bodyLimit: JSON_BODY_LIMIT,
    // Fastify accepts a hop count at run time, though its types omit it.
    trustProxy: config.trustProxy as boolean | string[],
    // Errors raised before routing completes, and bytes that are not HTTP, still get the envelope.
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    ...timeoutOptions(config),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', handleInTurnBatches);
  app.addHook('onRequest', startRequest(watchIdleSockets(app)));
  closeConnectionsOnClose(app);
  // First, so that every route gets its request metrics.
  installMetrics(app, config, services.metrics);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/') || route.url === OPENAPI_PATH || isPreflightRoute(route)) return;
    if (route.config?.permission === undefined) {
      throw new Error(`${route.method} ${route.url} must declare config.permission (null for any valid key)`);
    }
    documentRoute(route);
  });
  // JSON is the only body the API takes (uploads register their own parser); text/plain would
  // otherwise reach the schema as a string instead of being refused as the wrong media type.
  app.removeContentTypeParser('text/plain');
  // An empty body is no body, whatever its Content-Type: many HTTP clients send
  // application/json with every request, bodies or not, so a DELETE or a retry must take it, and
  // a route that needs a body answers one missing as it answers one absent (400
  // validation_error). Fastify's own parser, with its guards against prototype poisoning,
  // parses the rest.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // parseAs 'string': the body is a string, whatever the callback's type says.
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });
  installValidation(app);
  installErrorHandling(app);
  await registerOpenApi(app, config);

  await app.register(healthRoutes(database.db, services.redis));
  const recorder = new ViewRecorder(database.db, services.log, services.metrics);
  app.addHook('onClose', () => recorder.flush());
  await app.register(pageRoutes(services, new Tracker(services, recorder)));
  await app.register(publicFileRoutes(services));

  // RATE_LIMITS=false lifts key limits (benchmarks, trusted on-premise); failed-auth limits stay.
  const limiter = new RateLimiter(services.limits, services.clock, {
    enforceKeyLimits: config.rateLimits,
    multiplier: config.rateLimitMultiplier,
  });
  await app.register(dashboardRoutes(services));
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
    },
    { prefix: '/v1' },
  );

  return app;
}

/**
 * `tagsvc worker`'s HTTP server: only its own /metrics (its delivery attempts, process and
 * queue metrics), and only when METRICS_TOKEN is set; every other path is a 404.
 */
export function buildWorkerApp(services: Services): FastifyInstance {
  const app = Fastify({
    loggerInstance: services.log,
    genReqId: () => newId('req'),
    logController: new RequestLogController(),
    childLoggerFactory: requestLogger,
    ...timeoutOptions(services.config),
  });
  app.addHook('onRequest', startRequest(watchIdleSockets(app)));
  closeConnectionsOnClose(app);
  installMetrics(app, services.config, services.metrics);
  installErrorHandling(app);
  return app;
}

/**
 * What every request does first: its response carries its id, and the idle-socket watch
 * (timeouts.ts) learns which reply its socket is serving. Callback style rather than async:
 * nothing here waits, and an async hook costs every request a promise and a trip through the
 * microtask queue.
 */
function startRequest(track: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    reply.header('x-request-id', request.id);
    track(request, reply);
    done();
  };
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
