import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import * as audit from '../features/audit/index.js';
import { listEnvelope, pagination, PaginationQuery } from '../http/envelope.js';
import { component } from '../lib/components.js';

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

const AuditEntry = Type.Object(
  {
    id: Type.String({ description: 'aud_…' }),
    created_at: Type.String(),
    action: Type.String({ description: '`resource.past_tense`, e.g. tag.updated, key.disabled, user.sign_in_failed' }),
    actor: Type.Object({
      type: Type.Union([Type.Literal('user'), Type.Literal('key'), Type.Literal('operator'), Type.Literal('anonymous')]),
      id: Nullable(Type.String({ description: 'usr_… or key_…; null for the operator and the anonymous' })),
      name: Nullable(Type.String({ description: "The user's email or the key's name, as they were then" })),
    }),
    target_id: Nullable(Type.String({ description: 'What changed: tag_…, key_…, usr_…' })),
    ip: Nullable(Type.String({ description: 'The network of the address: IPv4 /24 (203.0.113.0), IPv6 /48; never a whole address' })),
    request_id: Nullable(Type.String({ description: 'req_…; null for the command line' })),
    environment: Type.Union([Type.Literal('live'), Type.Literal('test'), Type.Null()]),
    organization_id: Nullable(Type.String()),
    user_id: Nullable(Type.String({ description: "The user whose own space the entry belongs to (null for an organization's)" })),
    details: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  },
  {
    ...component('AuditEntry'),
    examples: [
      {
        id: 'aud_01jd8wzr1b3d5f7h9k1m3p5r7t',
        created_at: '2026-11-25T09:10:12.004Z',
        action: 'tag.updated',
        actor: { type: 'key', id: 'key_01jd8wzr1b3d5f7h9k1m3p5r7a', name: 'CI' },
        target_id: 'tag_01jd8wzr1b3d5f7h9k1m3p5r7b',
        ip: '203.0.113.0',
        request_id: 'req_01jd8wzr1b3d5f7h9k1m3p5r7c',
        environment: 'live',
        organization_id: 'org_01jd8wzr1b3d5f7h9k1m3p5r7d',
        user_id: null,
        details: { fields: 'title' },
      },
    ],
  },
);

const AuditQuery = Type.Object({
  ...PaginationQuery,
  action: Type.Optional(Type.String({ maxLength: 64, description: 'Only this action, e.g. tag.deleted' })),
  actor: Type.Optional(Type.String({ maxLength: 320, description: "Only this actor: a user's id or email, a key's id or name" })),
  from: Type.Optional(
    Type.String({ maxLength: 40, description: 'From this date (YYYY-MM-DD, UTC) or ISO 8601 time with its offset (Z or ±hh:mm) on' }),
  ),
  to: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'Up to this date, included (YYYY-MM-DD, UTC), or before this ISO 8601 time with its offset; not after from: 400 invalid_date_range',
    }),
  ),
});

/** The audit log of the key's workspace (Enterprise; `audit:read`, which analytics:read does not give). */
export function auditLogRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/audit-log',
      {
        config: { permission: 'audit:read' },
        schema: {
          operationId: 'listAuditLog',
          summary: "List the workspace's audit log, newest first",
          description:
            "Every change made through the API, the dashboard and the command line to the key's workspace (its organization, " +
            "or its user's own space), newest first. Enterprise plan only; the key needs `audit:read`.",
          tags: ['Audit log'],
          querystring: AuditQuery,
          response: { 200: listEnvelope(AuditEntry) },
        },
      },
      async (request) => {
        const { total, entries } = await audit.listAuditLog(ctx, request.actor, request.query);
        return { success: true as const, data: entries, pagination: pagination(total, request.query.limit, request.query.offset) };
      },
    );
  };
}
