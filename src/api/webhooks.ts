import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { EVENT_SAMPLES, EVENT_TYPES } from '../features/events/index.js';
import * as webhooks from '../features/webhooks/index.js';
import { dataEnvelope, DeletedBody, ErrorBody, listEnvelope, pagination, PaginationQuery } from '../http/envelope.js';
import { component } from '../lib/components.js';
import { idPattern } from '../lib/ids.js';

const WEBHOOKS = ['Webhooks'];
const EventKind = Type.Enum(EVENT_TYPES);
const Headers = Type.Record(Type.String(), Type.String(), { description: 'Custom headers sent with every delivery' });

const WEBHOOK_EXAMPLE = {
  id: 'wh_01jd8z1a3c5e7g9j1k3n5q7s9v',
  name: 'Slack relay',
  url: 'https://hooks.example.com/tagsvc',
  events: ['tag.created', 'tag.updated'],
  enabled: true,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  headers: { 'X-Team': 'facilities' },
  created_at: '2026-11-25T09:30:00.000Z',
  updated_at: '2026-11-25T09:30:00.000Z',
};
const STATS_EXAMPLE = { total_deliveries: 12, successful: 11, failed: 1, last_delivery_at: '2026-11-25T10:02:13.441Z' };

const Webhook = Type.Object(
  {
    id: Type.String({ description: 'wh_…' }),
    name: Type.String(),
    url: Type.String(),
    events: Type.Array(EventKind),
    enabled: Type.Boolean(),
    secret: Type.String({ description: 'Signing secret (Standard Webhooks); whsec_… when generated' }),
    headers: Headers,
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { ...component('Webhook'), examples: [WEBHOOK_EXAMPLE] },
);

const Stats = Type.Object({
  total_deliveries: Type.Integer(),
  successful: Type.Integer(),
  failed: Type.Integer(),
  last_delivery_at: Type.Union([Type.String(), Type.Null()]),
});

const WebhookWithStats = Type.Object(
  { ...Webhook.properties, stats: Stats },
  { ...component('WebhookWithStats'), examples: [{ ...WEBHOOK_EXAMPLE, stats: STATS_EXAMPLE }] },
);

const DELIVERY_EXAMPLE = {
  id: 'dlv_01jd8z4f6h8k0m2p4r6t8v0x2y',
  event: 'tag.created',
  status: 'success',
  response_code: 200,
  response_time_ms: 84,
  attempt: 1,
  delivered_at: '2026-11-25T09:14:04.102Z',
  next_attempt_at: null,
  test: false,
  payload: {
    id: 'evt_01jd8x3k5q7m2n4p6r8s0t2v50',
    event: 'tag.created',
    created_at: '2026-11-25T09:14:03.512Z',
    data: EVENT_SAMPLES['tag.created'],
  },
  created_at: '2026-11-25T09:14:03.512Z',
};
const ATTEMPT_EXAMPLE = {
  attempt: 1,
  timestamp: '2026-11-25T09:14:04.102Z',
  response_code: 200,
  response_time_ms: 84,
  response_body: 'ok',
  error: null,
};

const Delivery = Type.Object(
  {
    id: Type.String({ description: 'dlv_…' }),
    event: Type.String(),
    status: Type.Enum(['pending', 'success', 'failed']),
    response_code: Type.Union([Type.Integer(), Type.Null()]),
    response_time_ms: Type.Union([Type.Integer(), Type.Null()]),
    attempt: Type.Integer({ description: 'Attempts made so far' }),
    delivered_at: Type.Union([Type.String(), Type.Null()], { description: 'When the latest attempt was made' }),
    next_attempt_at: Type.Union([Type.String(), Type.Null()], { description: 'When the next automatic attempt is due (pending only)' }),
    test: Type.Boolean(),
    payload: Type.Object({}, { additionalProperties: true, description: 'The event body sent: id, event, created_at, data' }),
    created_at: Type.String(),
  },
  { ...component('Delivery'), examples: [DELIVERY_EXAMPLE] },
);

const Attempt = Type.Object(
  {
    attempt: Type.Integer(),
    timestamp: Type.String(),
    response_code: Type.Union([Type.Integer(), Type.Null()]),
    response_time_ms: Type.Integer(),
    response_body: Type.Union([Type.String(), Type.Null()], { description: 'First 1 KB of the answer' }),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { ...component('DeliveryAttempt'), examples: [ATTEMPT_EXAMPLE] },
);

const DeliveryWithAttempts = Type.Object(
  { ...Delivery.properties, attempts: Type.Array(Attempt) },
  { ...component('DeliveryWithAttempts'), examples: [{ ...DELIVERY_EXAMPLE, attempts: [ATTEMPT_EXAMPLE] }] },
);

const name = Type.String({ description: '1-255 characters' });
const url = Type.String({
  description: 'https:// only; must resolve to a public address (unless the operator allows private networks, for development)',
});
const events = Type.Array(EventKind, { minItems: 1 });
const secret = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'Signing secret: whsec_ followed by standard base64 (used as the decoded bytes, as Standard Webhooks verifiers do), or any other text (used as its UTF-8 bytes); generated when omitted',
});

const webhookId = Type.String({ pattern: idPattern('wh'), description: 'wh_…' });
const IdParams = Type.Object({ id: webhookId });
const DeliveryParams = Type.Object({ id: webhookId, delivery_id: Type.String({ pattern: idPattern('dlv'), description: 'dlv_…' }) });

export function webhookRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/webhooks',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          operationId: 'listWebhooks',
          summary: 'List webhooks',
          tags: WEBHOOKS,
          querystring: Type.Object({ ...PaginationQuery, enabled: Type.Optional(Type.Boolean()) }),
          response: { 200: listEnvelope(Webhook) },
        },
      },
      async (request) => {
        const { total, webhooks: items } = await webhooks.listWebhooks(ctx, request.actor, request.query);
        return { success: true as const, data: items, pagination: pagination(total, request.query.limit, request.query.offset) };
      },
    );

    app.post(
      '/webhooks',
      {
        config: {
          permission: 'webhooks:write',
          // An Idempotency-Key record never keeps the secret: a replay reads the current one.
          rereadOnReplay: {
            field: 'secret',
            read: (request, data) => webhooks.currentWebhookSecret(ctx, request.actor, { id: String(data.id) }),
          },
        },
        schema: {
          operationId: 'createWebhook',
          summary: 'Create a webhook',
          tags: WEBHOOKS,
          body: Type.Object(
            { name, url, events, secret: Type.Optional(secret), headers: Type.Optional(Headers), enabled: Type.Optional(Type.Boolean()) },
            {
              additionalProperties: false,
              examples: [{ name: 'Slack relay', url: 'https://hooks.example.com/tagsvc', events: ['tag.created', 'tag.updated'] }],
            },
          ),
          response: {
            201: dataEnvelope(Webhook),
            402: { ...ErrorBody, description: 'Plan webhook maximum reached (webhook_limit_reached)' },
          },
        },
      },
      async (request, reply) => {
        const webhook = await webhooks.createWebhook(ctx, request.actor, request.body);
        return reply.code(201).send({ success: true as const, data: webhook });
      },
    );

    app.get(
      '/webhooks/:id',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          operationId: 'getWebhook',
          summary: 'Get a webhook with delivery stats',
          tags: WEBHOOKS,
          params: IdParams,
          response: { 200: dataEnvelope(WebhookWithStats) },
        },
      },
      async (request) => ({ success: true as const, data: await webhooks.getWebhook(ctx, request.actor, request.params) }),
    );

    app.put(
      '/webhooks/:id',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'updateWebhook',
          summary: 'Update a webhook (omitted fields keep their value)',
          tags: WEBHOOKS,
          params: IdParams,
          body: Type.Object(
            {
              name: Type.Optional(name),
              url: Type.Optional(url),
              events: Type.Optional(events),
              secret: Type.Optional(secret),
              headers: Type.Optional(Headers),
              enabled: Type.Optional(Type.Boolean()),
            },
            { additionalProperties: false, examples: [{ events: ['tag.created', 'tag.deleted'], enabled: false }] },
          ),
          response: { 200: dataEnvelope(WebhookWithStats) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await webhooks.updateWebhook(ctx, request.actor, { ...request.body, id: request.params.id }),
      }),
    );

    app.delete(
      '/webhooks/:id',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'deleteWebhook',
          summary: 'Delete a webhook and its pending deliveries',
          tags: WEBHOOKS,
          params: IdParams,
          response: { 200: DeletedBody },
        },
      },
      async (request) => {
        await webhooks.deleteWebhook(ctx, request.actor, request.params);
        return { success: true as const, message: 'Webhook deleted' };
      },
    );

    app.post(
      '/webhooks/:id/test',
      {
        config: { permission: 'webhooks:write' },
        // The body is optional: no body means the default event.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          operationId: 'sendTestEvent',
          summary: 'Send a signed test event now (default event: tag.created)',
          tags: WEBHOOKS,
          params: IdParams,
          body: Type.Object({ event: Type.Optional(EventKind) }, { additionalProperties: false, examples: [{ event: 'file.uploaded' }] }),
          response: {
            200: dataEnvelope(
              Type.Object(
                {
                  delivery_id: Type.String(),
                  status: Type.Enum(['success', 'failed']),
                  response_code: Type.Union([Type.Integer(), Type.Null()]),
                  response_time_ms: Type.Union([Type.Integer(), Type.Null()]),
                },
                {
                  examples: [
                    { delivery_id: 'dlv_01jd8z4f6h8k0m2p4r6t8v0x2y', status: 'success', response_code: 200, response_time_ms: 84 },
                  ],
                },
              ),
            ),
          },
        },
      },
      async (request) => {
        const event = request.body.event ?? 'tag.created';
        const result = await webhooks.sendTestEvent(ctx, request.actor, { webhookId: request.params.id, event });
        return { success: true as const, data: { ...result, status: result.status as 'success' | 'failed' } };
      },
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          operationId: 'listDeliveries',
          summary: "List a webhook's deliveries, newest first",
          tags: WEBHOOKS,
          params: IdParams,
          querystring: Type.Object({ ...PaginationQuery, status: Type.Optional(Type.Enum(['pending', 'success', 'failed'])) }),
          response: { 200: listEnvelope(Delivery) },
        },
      },
      async (request) => {
        const { total, deliveries } = await webhooks.listDeliveries(ctx, request.actor, { ...request.query, id: request.params.id });
        return { success: true as const, data: deliveries, pagination: pagination(total, request.query.limit, request.query.offset) };
      },
    );

    app.get(
      '/webhooks/:id/deliveries/:delivery_id',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          operationId: 'getDelivery',
          summary: 'A delivery with every attempt',
          tags: WEBHOOKS,
          params: DeliveryParams,
          response: { 200: dataEnvelope(DeliveryWithAttempts) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await webhooks.getDelivery(ctx, request.actor, { webhookId: request.params.id, deliveryId: request.params.delivery_id }),
      }),
    );

    app.post(
      '/webhooks/:id/deliveries/:delivery_id/retry',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'retryDelivery',
          summary: 'Retry a failed delivery now (one attempt)',
          tags: WEBHOOKS,
          params: DeliveryParams,
          response: { 200: dataEnvelope(DeliveryWithAttempts) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await webhooks.retryDelivery(ctx, request.actor, { webhookId: request.params.id, deliveryId: request.params.delivery_id }),
      }),
    );
  };
}
