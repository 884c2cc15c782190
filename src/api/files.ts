import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import * as files from '../features/files/index.js';
import { sendDownload, sendThumbnail } from '../http/downloads.js';
import { dataEnvelope, DeletedBody, ErrorBody, listEnvelope, pagination, PaginationQuery } from '../http/envelope.js';
import { multipartUploads, uploadFromRequest } from '../http/uploads.js';
import { sweepStaleTemp } from '../lib/blob-storage.js';
import {
  DownloadQuery,
  File,
  FileParams,
  FromUrlBody,
  PatchBody,
  TagFilesParams,
  ThumbnailQuery,
  UploadBody,
} from '../http/schemas/files.js';

const binary = (description: string) => ({
  description,
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
});

const BinaryResponses = {
  200: binary('The content, with its Content-Type, Content-Disposition and ETag'),
  206: binary('Partial content (Range)'),
  304: { description: 'Not modified (If-None-Match)', type: 'null' },
  416: { ...ErrorBody, description: 'Range not satisfiable (range_not_satisfiable)' },
};

const UploadErrors = {
  400: { ...ErrorBody, description: 'Invalid input (validation_error), file over the plan maximum (file_too_large)' },
  415: { ...ErrorBody, description: 'Blocked, unsupported or mismatched type (unsupported_file_type)' },
  507: {
    ...ErrorBody,
    description:
      "The account storage limit would be exceeded (storage_limit_exceeded), or the server's disk is full (insufficient_storage)",
  },
};

const FILES = ['Files'];

/**
 * The files endpoints (DECISIONS.md "Files"). Uploads are streamed: the multipart parser is
 * scoped to this plugin and hands the file part over as a stream, never as a buffer.
 */
export function fileRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Temp files of uploads a crash interrupted, at start even without a worker (leftovers.ts).
    sweepStaleTemp(ctx.config.dataDir, files.DEAD_TEMP_AFTER_MS, ctx.clock.now().getTime()).catch((error: unknown) => {
      app.log.warn({ err: error }, 'could not sweep stale upload temp files');
    });
    // Limits are set per request from the caller's plan; these are only the outer bounds.
    await multipartUploads(app);

    app.post(
      '/tags/:id/files',
      {
        config: { permission: 'files:write', rateLimit: 'upload' },
        schema: {
          operationId: 'uploadFile',
          summary: 'Upload a file to a tag (multipart/form-data: file, name, description, in any order)',
          tags: FILES,
          params: TagFilesParams,
          body: UploadBody,
          response: { 201: dataEnvelope(File), ...UploadErrors },
        },
      },
      async (request, reply) => {
        const file = await uploadFromRequest(ctx, request, reply, request.actor, request.params.id);
        return reply.code(201).send({ success: true as const, data: file });
      },
    );

    app.post(
      '/tags/:id/files/from-url',
      {
        config: { permission: 'files:write', rateLimit: 'upload' },
        schema: {
          operationId: 'createFileFromUrl',
          summary: 'Add a file to a tag by fetching it from an http(s) URL',
          description:
            'At most 5 redirects, 30 s in all; private, loopback and link-local addresses are refused at every hop (400 invalid_url). ' +
            'The name comes from Content-Disposition or the URL path. Size, type and storage rules as for uploads.',
          tags: FILES,
          params: TagFilesParams,
          body: FromUrlBody,
          response: { 201: dataEnvelope(File), ...UploadErrors },
        },
      },
      async (request, reply) => {
        const file = await files.uploadFromUrl(ctx, request.actor, { ...request.body, tagId: request.params.id });
        return reply.code(201).send({ success: true as const, data: file });
      },
    );

    app.get(
      '/tags/:id/files',
      {
        config: { permission: 'files:read' },
        schema: {
          operationId: 'listTagFiles',
          summary: "List a tag's files (newest first)",
          tags: FILES,
          params: TagFilesParams,
          querystring: Type.Object(PaginationQuery),
          response: { 200: listEnvelope(File) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const { total, files: items } = await files.listFiles(ctx, request.actor, { tagId: request.params.id, limit, offset });
        return { success: true as const, data: items, pagination: pagination(total, limit, offset) };
      },
    );

    app.get(
      '/files/:file_id',
      {
        config: { permission: 'files:read' },
        schema: {
          operationId: 'getFile',
          summary: "A file's metadata",
          tags: FILES,
          params: FileParams,
          response: { 200: dataEnvelope(File) },
        },
      },
      async (request) => ({ success: true as const, data: await files.getFile(ctx, request.actor, { id: request.params.file_id }) }),
    );

    app.get(
      '/files/:file_id/download',
      {
        config: { permission: 'files:read' },
        schema: {
          operationId: 'downloadFile',
          summary: 'Download a file (Range, ETag); images can be resized and converted',
          description:
            'Images (jpeg, png, gif, webp, svg) accept width, height (fit inside, aspect kept, never enlarged), quality and format; ' +
            'on other files these parameters are a 400 validation_error.',
          tags: FILES,
          params: FileParams,
          querystring: DownloadQuery,
          response: BinaryResponses,
        },
      },
      async (request, reply) => {
        const file = await files.requireFile(ctx, request.actor, { id: request.params.file_id });
        const query = request.query;
        const given = (['width', 'height', 'quality', 'format'] as const).filter((key) => query[key] !== undefined);
        if (given.length > 0) {
          return sendDownload(ctx, request, reply, file, await files.transformedVariant(ctx, file, { ...query, given }));
        }
        return sendDownload(ctx, request, reply, file);
      },
    );

    app.get(
      '/files/:file_id/thumbnail',
      {
        config: { permission: 'files:read' },
        schema: {
          operationId: 'getFileThumbnail',
          summary: 'A thumbnail of an image file (default 256×256 box, webp)',
          tags: FILES,
          params: FileParams,
          querystring: ThumbnailQuery,
          response: BinaryResponses,
        },
      },
      async (request, reply) => {
        const file = await files.requireFile(ctx, request.actor, { id: request.params.file_id });
        return sendThumbnail(ctx, request, reply, file, request.query);
      },
    );

    app.patch(
      '/files/:file_id',
      {
        config: { permission: 'files:write' },
        schema: {
          operationId: 'updateFile',
          summary: "Change a file's name or description",
          tags: FILES,
          params: FileParams,
          body: PatchBody,
          response: { 200: dataEnvelope(File) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await files.updateFile(ctx, request.actor, { ...request.body, id: request.params.file_id }),
      }),
    );

    app.delete(
      '/files/:file_id',
      {
        config: { permission: 'files:write' },
        schema: {
          operationId: 'deleteFile',
          summary: 'Delete a file and its content',
          tags: FILES,
          params: FileParams,
          response: { 200: DeletedBody },
        },
      },
      async (request) => {
        await files.deleteFile(ctx, request.actor, { id: request.params.file_id });
        return { success: true as const, message: 'File deleted' };
      },
    );
  };
}
