import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Config } from '../config.js';
import { EVENT_DATA, EVENT_SAMPLES, EVENT_TYPES, type EventType } from '../features/events/index.js';
import { COMPONENT_KEY } from '../lib/components.js';
import { registerApiReference } from './api-reference.js';
import { ErrorBody } from './envelope.js';

export const OPENAPI_PATH = '/v1/openapi.json';

/**
 * Errors any authenticated route can answer with, with an example of each (the 400 one shows a
 * typo in a body); routes add their own (402, 416, 507…).
 */
const COMMON_ERRORS: Record<number, { code: string; message: string; description: string }> = {
  400: { code: 'validation_error', message: "unknown field 'titel'", description: 'Invalid input (validation_error, invalid_request)' },
  401: {
    code: 'unauthorized',
    message: 'Invalid API key',
    description: 'Missing, invalid, disabled or deleted API key (unauthorized)',
  },
  403: {
    code: 'forbidden',
    message: 'API access requires the Pro or Enterprise plan',
    description: 'Missing permission, IP not allowed, plan without API access, or resource of another account (forbidden)',
  },
  404: { code: 'not_found', message: 'Resource not found', description: 'No such resource (not_found)' },
  408: {
    code: 'request_timeout',
    message: 'The request body stopped arriving; send it again',
    description: 'The request headers or body stopped arriving (request_timeout); the connection is closed',
  },
  415: {
    code: 'unsupported_media_type',
    message: 'Unsupported Content-Type: send application/json',
    description: 'Request body is not JSON (unsupported_media_type)',
  },
  429: {
    code: 'rate_limit_exceeded',
    message: 'Rate limit exceeded',
    description: 'Rate limit exceeded (rate_limit_exceeded); see Retry-After',
  },
  500: {
    code: 'internal_error',
    message: 'Something went wrong on our side; quote the request id if you report it',
    description: 'Server fault (internal_error); quote the request id',
  },
  503: {
    code: 'service_unavailable',
    message: 'The database is not reachable right now; retry shortly',
    description:
      'The database, or Redis (rate limits), is down or not answering (service_unavailable): nothing was changed; retry after Retry-After',
  },
  507: {
    code: 'insufficient_storage',
    message: 'The server has no storage space left; nothing was saved. Retry later',
    description: "The server's disk is full (insufficient_storage): nothing was saved; the same request succeeds once space is freed",
  },
};

const EXAMPLE_REQUEST_ID = 'req_01jd8y7c9e1g3j5k7n9q1s3t5w';

/**
 * Checks and completes a /v1 route's documentation: every operation has an operationId (the
 * name generated clients call it by, so it cannot be forgotten) and lists the shared errors.
 */
export function documentRoute(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as { operationId?: string; response?: Record<number, unknown> };
  if (!schema.operationId) throw new Error(`${String(route.method)} ${route.url} must declare schema.operationId`);
  const response = (schema.response ??= {});
  for (const [status, { code, message, description }] of Object.entries(COMMON_ERRORS)) {
    const error = { code, message, request_id: EXAMPLE_REQUEST_ID, ...(code === 'validation_error' ? { field: 'titel' } : {}) };
    response[Number(status)] ??= { ...ErrorBody, description, examples: [{ success: false, error }] };
  }
}

type Json = Record<string, unknown>;

/**
 * Moves every schema named with COMPONENT_KEY into `components.schemas` and puts a `$ref` in
 * its place. A name stands for one shape: two different schemas under one name are a bug, so
 * they fail the document (the tests fetch it) instead of one silently winning.
 */
function hoistComponents(document: Json): void {
  const components = ((document.components as Json).schemas ??= {}) as Record<string, Json>;
  const shapes = new Map<string, string>();
  const shapeOf = (schema: Json) => JSON.stringify({ ...schema, description: undefined, examples: undefined });
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const object = node as Json;
    const copy: Json = {};
    for (const [key, value] of Object.entries(object)) copy[key] = key === 'examples' || key === 'example' ? value : visit(value);
    const name = copy[COMPONENT_KEY];
    if (typeof name !== 'string') return copy;
    delete copy[COMPONENT_KEY];
    const shape = shapeOf(copy);
    const known = shapes.get(name);
    if (known === undefined) {
      shapes.set(name, shape);
      components[name] = copy;
    } else if (known !== shape) {
      throw new Error(`Two different schemas are named ${name} in the OpenAPI document`);
    } else if (components[name]!.description !== copy.description) {
      // The same shape described for one use (an error response's description): the shared
      // component keeps none of them.
      delete components[name]!.description;
    }
    return { $ref: `#/components/schemas/${name}` };
  };
  document.paths = visit(document.paths);
  document.webhooks = visit(document.webhooks);
}

/**
 * A query parameter with a default is optional to the caller: validation fills the default in
 * before its `required` check, which only the TypeBox types need (a handler always sees a value).
 * Listing it as required would make generated clients demand it.
 */
function optionalDefaults(document: Json): void {
  for (const operations of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        if (parameter.in !== 'path' && (parameter.schema as Json | undefined)?.default !== undefined) parameter.required = false;
      }
    }
  }
}

/**
 * Every POST takes an Idempotency-Key (docs/idempotency.md). Its hook checks it rather than a
 * header schema, so the document names it here, for clients generated from it to offer it.
 */
function idempotencyKeyParameters(document: Json): void {
  const parameter = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'Makes the POST safe to retry: the same key and body within 24 hours replays the first answer (Idempotent-Replayed: true)',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: 'order-1042-create-tag',
  };
  for (const operations of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    const post = operations.post;
    if (post) post.parameters = [...((post.parameters ?? []) as Json[]), parameter];
  }
}

/** `tag.created` → `tagCreatedEvent`: the operationId of the event's webhook entry. */
function eventOperationId(type: EventType): string {
  return type.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase()) + 'Event';
}

/** The Standard Webhooks headers every delivery carries (docs/webhooks.md: verifying them). */
const DELIVERY_HEADERS = [
  { name: 'webhook-id', description: 'The event id (evt_…); the same for every attempt, so receivers deduplicate with it' },
  { name: 'webhook-timestamp', description: 'Unix seconds when the attempt was signed' },
  { name: 'webhook-signature', description: 'v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the webhook secret>' },
];

/** The 3.1 `webhooks` section: one entry per event of the catalogue, with its body and a sample. */
function eventWebhooks(): Json {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: eventOperationId(type),
          summary: `The ${type} event`,
          tags: ['Events'],
          security: [],
          parameters: DELIVERY_HEADERS.map(({ name, description }) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'event', 'created_at', 'data'],
                  properties: {
                    id: { type: 'string', description: 'evt_…' },
                    event: { type: 'string', const: type },
                    created_at: { type: 'string', description: 'ISO 8601' },
                    test: { type: 'boolean', description: 'Present and true on test events (POST /v1/webhooks/{id}/test)' },
                    data: EVENT_DATA[type],
                  },
                },
                example: {
                  id: 'evt_01jd8y7c9e1g3j5k7n9q1s3t5w',
                  event: type,
                  created_at: '2026-11-25T09:20:41.087Z',
                  data: EVENT_SAMPLES[type],
                },
              },
            },
          },
          responses: {
            '200': { description: 'Received: any 2xx within 30 seconds; anything else is retried' },
          },
        },
      },
    ]),
  );
}

/** Example bodies for the catalogue's components, from the samples test events carry. */
const CATALOGUE_EXAMPLES: Record<string, unknown> = {
  Tag: EVENT_SAMPLES['tag.updated'].tag,
  TagSummary: EVENT_SAMPLES['tag.deleted'].tag,
  File: EVENT_SAMPLES['file.uploaded'].file,
  ViewEvent: EVENT_SAMPLES['tag.viewed'].view,
  QrOptions: EVENT_SAMPLES['qr.generated'].qr,
  ClickEvent: EVENT_SAMPLES['link.clicked'].click,
};

/**
 * An example of a value of `schema`: its own example where it has one, otherwise built from its
 * parts, so every JSON response shows a complete body assembled from the components' examples.
 */
function exampleOf(schema: Json, components: Record<string, Json>): unknown {
  if (Array.isArray(schema.examples)) return schema.examples[0];
  if (typeof schema.$ref === 'string') return exampleOf(components[schema.$ref.split('/').pop()!]!, components);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const options = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (options) return exampleOf(options.find((option) => option.type !== 'null') ?? options[0]!, components);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([key, value]) => [key, exampleOf(value, components)]),
      );
    case 'array':
      return schema.items ? [exampleOf(schema.items as Json, components)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return 'string';
  }
}

/** Gives every component an example (the catalogue's samples) and every JSON response one. */
function addExamples(document: Json): void {
  const components = (document.components as Json).schemas as Record<string, Json>;
  for (const [name, example] of Object.entries(CATALOGUE_EXAMPLES)) if (components[name]) components[name].examples ??= [example];
  for (const operations of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>)) {
        const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
        if (media?.schema && media.example === undefined && media.examples === undefined) {
          media.example = exampleOf(media.schema as Json, components);
        }
      }
    }
  }
}

/** The document as the route schemas describe it, completed for client generators. */
function finishDocument(document: Json): Json {
  document.webhooks = eventWebhooks();
  optionalDefaults(document);
  idempotencyKeyParameters(document);
  hoistComponents(document);
  addExamples(document);
  return document;
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
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: config.publicBaseUrl, description: 'This instance (PUBLIC_BASE_URL)' }],
      tags: [
        { name: 'Account', description: 'The account and API key making the request' },
        { name: 'Tags', description: 'Titled content pages with short addresses and QR codes' },
        { name: 'Folders', description: 'Folders that group tags' },
        { name: 'Files', description: 'Files attached to tags: uploads, downloads, image variants' },
        { name: 'Webhooks', description: 'Webhook subscriptions and their deliveries' },
        { name: 'Analytics', description: 'Views, reports, access logs and exports' },
        { name: 'Audit log', description: 'Who changed what: every change through the API, the dashboard and the command line' },
        { name: 'Events', description: 'The bodies the service POSTs to webhook receivers' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer svc_live_… or svc_test_…' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    },
    // 3.1 has `const` (the block types' discriminator); the webhooks section keeps it too.
    convertConstToEnum: false,
    // Only an OpenAPI document is ever built here (never Swagger 2.0).
    transformObject: (built) =>
      'openapiObject' in built ? (finishDocument(built.openapiObject as Json) as typeof built.openapiObject) : built.swaggerObject,
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  registerApiReference(app, OPENAPI_PATH);
}
