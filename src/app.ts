import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { checkApiRoute, registerApi } from './api/index.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { clientError, frameworkError, installErrorHandling } from './http/error-handler.js';
import { closeConnectionsOnClose } from './http/graceful-close.js';
import { RequestLogController, requestLogger } from './http/logging.js';
import { installMetrics } from './http/metrics.js';
import { registerOpenApi } from './http/openapi.js';
import { timeoutOptions, watchIdleSockets } from './http/timeouts.js';
import { installValidation } from './http/validation.js';
import { newId } from './lib/ids.js';
import { handleInTurnBatches } from './perf/turn-batches.js';
import { registerPublic } from './public/index.js';
import type { Services } from './services.js';

const JSON_BODY_LIMIT = 1024 * 1024;

/** Builds the HTTP application: cross-cutting plugins, then the front doors. */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config } = services;
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
  app.addHook('onRoute', checkApiRoute);
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

  // The three front doors: public pages, the dashboard, the API.
  await registerPublic(app, services);
  await app.register(dashboardRoutes(services));
  await registerApi(app, services);

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
