import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Config } from '../config.js';
import { ErrorBody } from './envelope.js';

export const OPENAPI_PATH = '/v1/openapi.json';

/** Errors any authenticated route can answer with; routes add their own (402, 415, 507…). */
const COMMON_ERRORS: Record<number, string> = {
  400: 'Invalid input (validation_error, invalid_request)',
  401: 'Missing, invalid, disabled or deleted API key (unauthorized)',
  403: 'Missing permission, IP not allowed, plan without API access, or resource of another account (forbidden)',
  404: 'No such resource (not_found)',
  415: 'Request body is not JSON (unsupported_media_type)',
  429: 'Rate limit exceeded (rate_limit_exceeded); see Retry-After',
  500: 'Server fault (internal_error); quote the request id',
  503: 'Rate limiting store (Redis) unreachable (service_unavailable); retry shortly',
};

/** Adds the shared error responses to a /v1 route's schema so the document lists them. */
export function documentErrors(route: RouteOptions): void {
  const schema = (route.schema ??= {});
  const response = (schema.response ??= {}) as Record<number, unknown>;
  for (const [status, description] of Object.entries(COMMON_ERRORS)) {
    response[Number(status)] ??= { ...ErrorBody, description };
  }
}

/** OpenAPI 3.1 generated from the route schemas, served at /v1/openapi.json, browsable at /docs. */
export async function registerOpenApi(app: FastifyInstance, config: Pick<Config, 'publicBaseUrl'>): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'tagsvc API',
        version: '1.0.0',
        description:
          'Tags (titled content pages with short addresses and QR codes), files, webhooks and analytics. ' +
          'Every response uses the envelope { success, data | message | error }. Every response carries X-Request-Id.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer svc_live_… or svc_test_…' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
