import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import * as tags from '../features/tags/index.js';
import { sendTagged } from '../http/conditional.js';
import { dataEnvelope, DeletedBody, ErrorBody, listEnvelope, pagination, PaginationQuery } from '../http/envelope.js';
import { idPattern } from '../lib/ids.js';
import { SerializedBodies } from '../perf/serialized-bodies.js';
import { QrQuery, TagBatchBody, TagCreateBody, TagIdParams, TagListItem, TagRead, TagUpdateBody } from '../http/schemas/tags.js';

const TAGS = ['Tags'];

const ADDRESS_TAKEN = {
  409: { ...ErrorBody, description: 'The chosen short_id is held, or was once held, by another tag, in any case (short_id_taken)' },
};

export function tagRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  // getTag hands out the same view object for as long as the tag is cached unchanged.
  const tagBodies = new SerializedBodies((view: tags.TagRead) => ({ success: true as const, data: view }));

  return async (app) => {
    app.get(
      '/tags',
      {
        config: { permission: 'tags:read' },
        schema: {
          operationId: 'listTags',
          summary: 'List tags',
          tags: TAGS,
          querystring: Type.Object({
            ...PaginationQuery,
            folder: Type.Optional(Type.String({ pattern: idPattern('fld'), description: 'Only tags in this folder (fld_…)' })),
            sort: Type.Enum(['created', 'updated', 'title'], { default: 'created' }),
            order: Type.Enum(['asc', 'desc'], { default: 'desc' }),
          }),
          response: { 200: listEnvelope(TagListItem) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const { total, tags: items } = await tags.listTags(ctx, request.actor, request.query);
        return { success: true as const, data: items, pagination: pagination(total, limit, offset) };
      },
    );

    app.post(
      '/tags',
      {
        config: { permission: 'tags:write' },
        schema: {
          operationId: 'createTag',
          summary: 'Create a tag',
          tags: TAGS,
          body: TagCreateBody,
          response: { 201: dataEnvelope(TagRead), ...ADDRESS_TAKEN },
        },
      },
      async (request, reply) => {
        const tag = await tags.createTag(ctx, request.actor, request.body);
        return reply.code(201).send({ success: true as const, data: tag });
      },
    );

    app.post(
      '/tags/batch',
      {
        config: { permission: 'tags:write', rateLimit: 'bulk' },
        schema: {
          operationId: 'createTags',
          summary: 'Create up to 100 tags at once (all or nothing)',
          tags: TAGS,
          body: TagBatchBody,
          response: {
            201: dataEnvelope(
              Type.Object(
                { created: Type.Integer(), tags: Type.Array(Type.Object({ id: Type.String(), short_id: Type.String() })) },
                { examples: [{ created: 1, tags: [{ id: 'tag_01jd8x3k5q7m2n4p6r8s0t2v4w', short_id: 'Xk9mP2qL' }] }] },
              ),
            ),
            ...ADDRESS_TAKEN,
          },
        },
      },
      async (request, reply) => {
        const result = await tags.createTags(ctx, request.actor, request.body);
        return reply.code(201).send({ success: true as const, data: result });
      },
    );

    app.get(
      '/tags/:id',
      {
        config: { permission: 'tags:read' },
        schema: {
          operationId: 'getTag',
          summary: 'Get a tag by id or short id',
          tags: TAGS,
          params: TagIdParams,
          response: { 200: dataEnvelope(TagRead) },
        },
      },
      (request, reply) => tagBodies.sendWhenReady(reply, tags.getTag(ctx, request.actor, request.params)),
    );

    app.put(
      '/tags/:id',
      {
        config: { permission: 'tags:write' },
        schema: {
          operationId: 'updateTag',
          summary: 'Update a tag (omitted fields keep their value; content replaces the block list)',
          tags: TAGS,
          params: TagIdParams,
          body: TagUpdateBody,
          response: { 200: dataEnvelope(TagRead), ...ADDRESS_TAKEN },
        },
      },
      async (request) => ({
        success: true as const,
        data: await tags.updateTag(ctx, request.actor, { ...request.body, id: request.params.id }),
      }),
    );

    app.delete(
      '/tags/:id',
      {
        config: { permission: 'tags:delete' },
        schema: {
          operationId: 'deleteTag',
          summary: 'Delete a tag, its files and its analytics',
          tags: TAGS,
          params: TagIdParams,
          response: { 200: DeletedBody },
        },
      },
      async (request) => {
        await tags.deleteTag(ctx, request.actor, request.params);
        return { success: true as const, message: 'Tag deleted' };
      },
    );

    app.get(
      '/tags/:id/qr',
      {
        config: { permission: 'tags:read', rateLimit: 'qr' },
        schema: {
          operationId: 'getTagQr',
          summary: "The tag's QR code, encoding its scan address",
          tags: TAGS,
          params: TagIdParams,
          querystring: QrQuery,
          response: {
            200: {
              description: 'The image',
              content: { 'image/png': { schema: { type: 'string', format: 'binary' } }, 'image/svg+xml': { schema: { type: 'string' } } },
            },
            304: { description: 'Not modified (If-None-Match)', type: 'null' },
          },
        },
      },
      async (request, reply) => {
        const tag = await tags.requireTag(ctx, request.actor, request.params.id);
        const { format, size, color, background } = request.query;
        const options = { format, size, color: tags.normalizeColor(color), background: tags.normalizeColor(background) };
        const image = await tags.qrImage(tags.scanUrl(ctx.config, tag), options);
        await tags.recordQrGenerated(ctx, tag, options);
        return sendTagged(request, reply, image, 'private, max-age=86400');
      },
    );
  };
}
