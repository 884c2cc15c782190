import type { ServiceContext } from '../../context.js';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { closeAfterResponse } from '../../http/linger.js';
import { dataEnvelope, DeletedBody, ErrorBody, listEnvelope, pagination, PaginationQuery } from '../../http/envelope.js';
import { ApiError, failureFields, invalidRequest, unknownField, validationError } from '../../errors.js';
import { findTag } from '../tags/index.js';
import type { FileRow } from './files.repository.js';
import { DownloadQuery, File, FileParams, FromUrlBody, PatchBody, TagFilesParams, ThumbnailQuery, UploadBody } from './files.schemas.js';
import * as files from './files.service.js';
import type { TransformRequest, Variant } from './images.js';
import { fileTooLarge } from './ingest.js';
import { contentDisposition, downloadName, requireValidDescription, requireValidName } from './names.js';
import { sendFile, type Sendable } from '../../http/send-file.js';
import { sweepStaleTemp } from '../../lib/blob-storage.js';
import { mayReadTagPage, type Actor } from '../accounts/index.js';
import { DEAD_TEMP_AFTER_MS } from './leftovers.js';
import { SHORT_ID_PATTERN } from '../../lib/ids.js';
import { isShownInline } from './file-types.js';

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
const SHORT_ID = new RegExp(SHORT_ID_PATTERN);

/** Room for the multipart framing and the small text fields around the file. */
const MULTIPART_OVERHEAD = 1024 * 1024;
const FIELD_BYTES = 16 * 1024;

/** Text is served as UTF-8 (it was checked to be). */
function contentTypeOf(mime: string): string {
  return /^text\/|^application\/(json|xml)$|^image\/svg\+xml$/.test(mime) ? `${mime}; charset=utf-8` : mime;
}

function blobOf(ctx: ServiceContext, file: FileRow): Sendable {
  return {
    size: file.size,
    etag: `"${file.sha256.slice(0, 32)}"`,
    contentType: contentTypeOf(file.mime_type),
    open: (range) => ctx.blobs.read(file.id, range),
  };
}

function variantOf(variant: Variant): Sendable {
  return { size: variant.size, etag: variant.etag, contentType: variant.mime, open: variant.open };
}

/** Counts a download once it was sent whole; a failure to count is only logged. */
function countDownload(ctx: ServiceContext, request: FastifyRequest, file: FileRow): void {
  files
    .recordDownload(ctx, file.id)
    .catch((error: unknown) => request.log.warn({ ...failureFields(error), file_id: file.id }, 'could not count a download'));
}

/** A file's content as an attachment under its name (Range, ETag), counted as a download. */
export function sendDownload(ctx: ServiceContext, request: FastifyRequest, reply: FastifyReply, file: FileRow) {
  return sendFile(
    request,
    reply,
    blobOf(ctx, file),
    {
      'content-disposition': contentDisposition('attachment', downloadName(file.name, file.mime_type)),
      'cache-control': 'private, no-cache',
    },
    () => countDownload(ctx, request, file),
  );
}

/** An image file's thumbnail (400 validation_error for other files). */
export async function sendThumbnail(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  file: FileRow,
  size: TransformRequest,
) {
  const variant = await files.thumbnail(ctx, file, size);
  return sendFile(request, reply, variantOf(variant), {
    'content-disposition': contentDisposition('inline', downloadName(file.name, file.mime_type, variant.mime)),
    // The content of a file id never changes, so neither does its thumbnail.
    'cache-control': 'private, max-age=86400',
  });
}

/** Multipart parser failures, in the spec's codes. */
function fromMultipartError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'FST_FILES_LIMIT':
      return validationError('file', 'Send one file per request');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return invalidRequest('Too many parts: send file, name and description only');
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return invalidRequest('Malformed multipart field');
    case 'FST_MP_PREMATURE_CLOSE':
      return invalidRequest('The upload ended before the request was complete');
    default:
      break;
  }
  if (error instanceof Error && /multipart|boundary|part/i.test(error.message))
    return invalidRequest(`Malformed multipart body: ${error.message}`);
  return error;
}

const isFileField = (field: string): field is 'name' | 'description' => field === 'name' || field === 'description';

/** The multipart parser, for a scope with upload routes: limits are set per request (uploadFromRequest). */
export async function multipartUploads(app: FastifyInstance): Promise<void> {
  await app.register(multipart, { throwFileSizeLimit: false });
}

/** What a front door adds to the upload form of the API: fields of its own, and a check before the file. */
export interface UploadFormHooks {
  /** Text fields beyond name and description that the front door reads itself, each as it arrives. */
  extraFields?: Record<string, (value: string) => void>;
  /** Runs just before the file's bytes are read; throws to refuse the upload. */
  beforeFile?(): void;
}

/**
 * An upload, the one way for every front door: a multipart body (parts file, name, description,
 * in any order) streamed to disk under the actor's plan, then committed as the tag's file.
 * Refused before its end, the connection is closed so the rest of the body is never read.
 */
export async function uploadFromRequest(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  actor: Actor,
  tagId: string,
  hooks: UploadFormHooks = {},
): Promise<files.FileView> {
  let received: files.ReceivedFile | undefined;
  try {
    if (!request.isMultipart()) {
      throw new ApiError('unsupported_media_type', 'Send the file as multipart/form-data (parts: file, name, description)');
    }
    const target = await files.prepareUpload(ctx, actor, { tagId });
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > target.maxBytes + MULTIPART_OVERHEAD) throw fileTooLarge(target.maxBytes);
    const fields: files.FileFields = {};
    const parts = request.parts({
      // One byte over the plan maximum reaches the size check, which answers at once.
      limits: { fileSize: target.maxBytes + 1, files: 1, fields: 8, parts: 10, fieldSize: FIELD_BYTES, headerPairs: 100 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file')
          throw validationError(part.fieldname, `${part.fieldname} is not a known field; send the file as "file"`);
        const originalName = files.originalNameOf(part.filename);
        hooks.beforeFile?.();
        received = await files.receiveFile(ctx, target, originalName, files.ruleForUpload(originalName), part.file);
        continue;
      }
      const field = part.fieldname;
      const readByCaller = hooks.extraFields && Object.hasOwn(hooks.extraFields, field) ? hooks.extraFields[field] : undefined;
      if (!isFileField(field) && !readByCaller) throw unknownField(field);
      if (typeof part.value !== 'string') throw validationError(field, `${field} must be text`);
      if (part.valueTruncated) throw validationError(field, `${field} is too long`);
      if (!isFileField(field)) {
        readByCaller!(part.value);
        continue;
      }
      if (fields[field] !== undefined) throw validationError(field, `${field} was sent twice`);
      // Checked as soon as it arrives, so a bad name fails before the file is streamed.
      fields[field] = field === 'name' ? requireValidName(part.value, 'name') : requireValidDescription(part.value);
    }
    if (!received) throw validationError('file', 'file is required');
    return await files.commitUpload(ctx, target, received, fields);
  } catch (error) {
    // Refused before the body was read to its end: answer now and close the connection,
    // so the rest of a large body is never read (Node would otherwise drain it).
    if (!request.raw.complete) closeAfterResponse(request, reply);
    throw fromMultipartError(error);
  } finally {
    await files.discardReceived(received);
  }
}

/**
 * The files endpoints (DECISIONS.md "Files"). Uploads are streamed: the multipart parser is
 * scoped to this plugin and hands the file part over as a stream, never as a buffer.
 */
export function fileRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Temp files of uploads a crash interrupted, at start even without a worker (leftovers.ts).
    sweepStaleTemp(ctx.config.dataDir, DEAD_TEMP_AFTER_MS, ctx.clock.now().getTime()).catch((error: unknown) => {
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
          const variant = await files.transformedVariant(ctx, file, { ...query, given });
          return sendFile(
            request,
            reply,
            variantOf(variant),
            {
              'content-disposition': contentDisposition('attachment', downloadName(file.name, file.mime_type, variant.mime)),
              'cache-control': 'private, no-cache',
            },
            () => countDownload(ctx, request, file),
          );
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

/**
 * The files of a tag's page (`/t/{short_id}/files/{id}`), to whoever may see the page: anyone
 * for a public tag, only its owner or organization signed in to the dashboard otherwise. The
 * tag is read on every request, so a tag made private stops serving its files at once.
 * Raster images are sent inline (image blocks); everything else is a download, counted as one.
 * Another tag's file, or an unreadable tag, is 404.
 */
export function publicFileRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const schema = { params: Type.Object({ shortId: Type.String(), fileId: Type.String() }), hide: true };
    app.get(
      '/t/:shortId/files/:fileId',
      { schema },
      async (request: FastifyRequest<{ Params: { shortId: string; fileId: string } }>, reply: FastifyReply) => {
        const { shortId, fileId } = request.params;
        const tag = SHORT_ID.test(shortId) ? await findTag(ctx, shortId) : undefined;
        const readable = tag !== undefined && (await mayReadTagPage(ctx, request.headers.cookie, tag));
        const file = readable ? await files.pageFile(ctx, tag, fileId) : undefined;
        if (!file) throw new ApiError('not_found', 'Not found');
        if (!isShownInline(file.mime_type)) return sendDownload(ctx, request, reply, file);
        return sendFile(request, reply, blobOf(ctx, file), {
          'content-disposition': contentDisposition('inline', downloadName(file.name, file.mime_type)),
          // Short: a tag made private stops being served by caches soon after. A non-public
          // tag's images are one viewer's, never for a shared cache.
          'cache-control': tag!.read_permission === 'public' ? 'public, max-age=300' : 'private, no-store',
        });
      },
    );
  };
}
