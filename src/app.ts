import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { meRoutes } from './features/accounts/me.routes.js';
import type { Scope } from './features/accounts/scope.js';
import { analyticsRoutes } from './features/analytics/analytics.routes.js';
import { MemoryPresenceStore, RedisPresenceStore } from './features/analytics/presence.js';
import { Tracker } from './features/analytics/tracking.js';
import { ViewRecorder } from './features/analytics/view-recorder.js';
import { fileRoutes, publicFileRoutes } from './features/files/files.routes.js';
import { countFilesUploaded, createFilesContext } from './features/files/files.service.js';
import { folderRoutes } from './features/folders/folders.routes.js';
import { healthRoutes } from './features/health/health.routes.js';
import { pageRoutes } from './features/pages/pages.routes.js';
import { tagRoutes } from './features/tags/tags.routes.js';
import { webhookRoutes } from './features/webhooks/webhooks.routes.js';
import { Authenticator, type Principal, type RoutePermission } from './http/auth.js';
import { installErrorHandling } from './http/error-handler.js';
import { RateLimiter, type EndpointBucket } from './http/rate-limit/limiter.js';
import { createRateLimitStore } from './http/rate-limit/store.js';
import { installValidation } from './http/validation.js';
import { loggerOptions, RequestLogController } from './http/logging.js';
import { documentErrors, OPENAPI_PATH, registerOpenApi } from './http/openapi.js';
import type { Clock } from './lib/clock.js';
import { createOutboundAgents } from './lib/outbound.js';
import { newId } from './lib/ids.js';

export interface AppServices {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  /** REDIS_URL's connection (lib/redis.ts), opened and closed by the caller like the database. */
  redis: Redis | undefined;
}

const JSON_BODY_LIMIT = 1024 * 1024;

/** Builds the HTTP application: cross-cutting plugins, then every feature's routes. */
export async function buildApp({ config, database, clock, redis }: AppServices): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel),
    genReqId: () => newId('req'),
    logController: new RequestLogController(),
    bodyLimit: JSON_BODY_LIMIT,
    // Fastify accepts a hop count at run time, though its types omit it.
    trustProxy: config.trustProxy as boolean | string[],
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Callback style rather than async: nothing here waits, and an async hook costs every request
  // a promise and a trip through the microtask queue.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/') || route.url === OPENAPI_PATH) return;
    if (route.config?.permission === undefined) {
      throw new Error(`${route.method} ${route.url} must declare config.permission (null for any valid key)`);
    }
    documentErrors(route);
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

  await app.register(healthRoutes(database.db));
  const presence = redis ? new RedisPresenceStore(redis) : new MemoryPresenceStore();
  const recorder = new ViewRecorder(database.db, app.log, config.databasePoolSize);
  app.addHook('onClose', async () => {
    await recorder.flush();
    await presence.close();
  });
  const tracker = new Tracker(database.db, config, clock, recorder, presence, app.log);
  await app.register(pageRoutes(database.db, clock, tracker));
  const analyticsContext = {
    db: database.db,
    clock,
    presence,
    countFilesUploaded: (scope: Scope, range: { from: string; to: string }) => countFilesUploaded(database.db, scope, range),
  };
  const filesContext = createFilesContext({ db: database.db, clock, config });
  await app.register(publicFileRoutes(filesContext));

  const tagsContext = { db: database.db, clock, config };
  const agents = createOutboundAgents(config);
  app.addHook('onClose', async () => {
    agents.http.destroy();
    agents.https.destroy();
  });
  const webhooksContext = { db: database.db, clock, config, agents };
  // RATE_LIMITS=false lifts key limits (benchmarks, trusted on-premise); failed-auth limits stay.
  const rateLimitStore = createRateLimitStore(redis);
  const limiter = new RateLimiter(rateLimitStore, clock, app.log, {
    enforceKeyLimits: config.rateLimits,
    multiplier: config.rateLimitMultiplier,
  });
  app.addHook('onClose', () => limiter.close());
  await app.register(dashboardRoutes({ db: database.db, clock, config, rateLimitStore }));
  const authenticator = new Authenticator(database.db, clock, config, app.log, limiter);
  app.decorateRequest('principal', null as unknown as Principal);
  await app.register(
    async (v1) => {
      // Every /v1 route gets the guard as its first onRequest hook, bound to the route's
      // permission and endpoint bucket once, when it is registered: reading them per request
      // (request.routeOptions) would build a new options object for every request.
      v1.addHook('onRoute', (route) => {
        const guard = routeGuard(authenticator, limiter, route.config?.permission ?? null, route.config?.rateLimit);
        route.onRequest = [guard, ...[route.onRequest ?? []].flat()];
      });
      await v1.register(meRoutes);
      await v1.register(tagRoutes(tagsContext));
      await v1.register(folderRoutes(tagsContext));
      await v1.register(fileRoutes(filesContext));
      await v1.register(webhookRoutes(webhooksContext));
      await v1.register(analyticsRoutes(analyticsContext));
    },
    { prefix: '/v1' },
  );

  return app;
}

/** The order of ARCHITECTURE.md: key → address, plan, permission → rate limits → handler. */
function routeGuard(authenticator: Authenticator, limiter: RateLimiter, permission: RoutePermission, bucket: EndpointBucket | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = await authenticator.authenticate(request);
    request.principal = principal;
    try {
      authenticator.authorize(request, principal, permission);
    } catch (error) {
      await limiter.annotate(reply, principal, bucket);
      throw error;
    }
    await limiter.admit(reply, principal, bucket);
  };
}
