import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import * as shares from '../features/shares/index.js';
import { PAGE_PASSWORD_LENGTH } from '../features/tags/index.js';
import { dataEnvelope, DeletedBody } from '../http/envelope.js';
import { component } from '../lib/components.js';
import { idPattern, TAG_REF_PATTERN } from '../lib/ids.js';

const ANALYTICS = ['Analytics'];
const permission = 'analytics:read' as const;

const SHARE_EXAMPLE = {
  id: 'shr_01jd9a2b4c6d8e0f2g4h6j8k0m',
  url: 'https://tags.example.com/stats/8V3kQm0wYl2pXr5tN7bHc9dFg1jKs4uZa6eRi0oTy_A',
  expires_at: '2026-12-31T23:00:00.000Z',
  password_protected: true,
  created_at: '2026-11-25T09:30:00.000Z',
};

const Share = Type.Object(
  {
    id: Type.String({ description: 'shr_…' }),
    url: Type.String({
      description:
        'The public address of the report, {PUBLIC_BASE_URL}/stats/{token}: anyone with it sees the summary, chart and breakdowns, without an account. The same address every time it is listed',
    }),
    expires_at: Type.Union([Type.String(), Type.Null()], { description: 'From then on the address answers 404; null: until revoked' }),
    password_protected: Type.Boolean({ description: 'Whether the page asks for a password first' }),
    created_at: Type.String(),
  },
  { ...component('AnalyticsShare'), examples: [SHARE_EXAMPLE] },
);

const TagParams = Type.Object({ id: Type.String({ pattern: TAG_REF_PATTERN, description: 'Tag id or short id' }) });
const ShareParams = Type.Object({
  id: TagParams.properties.id,
  share_id: Type.String({ pattern: idPattern('shr'), description: 'shr_…' }),
});

/**
 * /v1/tags/{id}/analytics/shares: a tag's report shared at a public address
 * (features/shares), with the tag access of the report itself.
 */
export function analyticsShareRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/tags/:id/analytics/shares',
      {
        config: { permission },
        // The body is optional: no body shares the report without expiry or password.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          operationId: 'createAnalyticsShare',
          summary: "Share a tag's report at a public address, without sign-in",
          tags: ANALYTICS,
          params: TagParams,
          body: Type.Object(
            {
              expires_at: Type.Optional(
                Type.Union([Type.String(), Type.Null()], {
                  description:
                    'RFC 3339 time with an offset, in the future; the address answers 404 from then on. Null or absent: no expiry',
                }),
              ),
              password: Type.Optional(
                Type.Union([Type.String(), Type.Null()], {
                  description: `Write-only: ${PAGE_PASSWORD_LENGTH.min}-${PAGE_PASSWORD_LENGTH.max} characters the page asks for first. Null or absent: none`,
                }),
              ),
            },
            { additionalProperties: false, examples: [{ expires_at: '2026-12-31T23:00:00Z', password: 'spring-report' }] },
          ),
          response: { 201: dataEnvelope(Share) },
        },
      },
      async (request, reply) => {
        const share = await shares.createShare(ctx, request.actor, { ...request.body, id: request.params.id });
        return reply.code(201).send({ success: true as const, data: share });
      },
    );

    app.get(
      '/tags/:id/analytics/shares',
      {
        config: { permission },
        schema: {
          operationId: 'listAnalyticsShares',
          summary: "A tag's shared report addresses, oldest first (expired ones too)",
          tags: ANALYTICS,
          params: TagParams,
          response: { 200: dataEnvelope(Type.Array(Share)) },
        },
      },
      async (request) => ({ success: true as const, data: await shares.listShares(ctx, request.actor, request.params) }),
    );

    app.delete(
      '/tags/:id/analytics/shares/:share_id',
      {
        config: { permission },
        schema: {
          operationId: 'deleteAnalyticsShare',
          summary: 'Revoke a shared report: its address answers 404 at once',
          tags: ANALYTICS,
          params: ShareParams,
          response: { 200: DeletedBody },
        },
      },
      async (request) => {
        await shares.deleteShare(ctx, request.actor, request.params);
        return { success: true as const, message: 'Share revoked' };
      },
    );
  };
}
