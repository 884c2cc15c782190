import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { failureFields } from '../errors.js';
import * as files from '../features/files/index.js';
import { sendFile, type Sendable } from './send-file.js';

/** Text is served as UTF-8 (it was checked to be). */
function contentTypeOf(mime: string): string {
  return /^text\/|^application\/(json|xml)$|^image\/svg\+xml$/.test(mime) ? `${mime}; charset=utf-8` : mime;
}

function blobOf(ctx: ServiceContext, file: files.FileRow): Sendable {
  return {
    size: file.size,
    etag: `"${file.sha256.slice(0, 32)}"`,
    contentType: contentTypeOf(file.mime_type),
    open: (range) => ctx.blobs.read(file.id, range),
  };
}

function variantOf(variant: files.Variant): Sendable {
  return { size: variant.size, etag: variant.etag, contentType: variant.mime, open: variant.open };
}

/** Counts a download once it was sent whole; a failure to count is only logged. */
function countDownload(ctx: ServiceContext, request: FastifyRequest, file: files.FileRow): void {
  files
    .recordDownload(ctx, file.id)
    .catch((error: unknown) => request.log.warn({ ...failureFields(error), file_id: file.id }, 'could not count a download'));
}

/**
 * A file's content as an attachment under its name (Range, ETag), counted as a download; an
 * image resized or converted (`converted`) is named for the format it is sent in.
 */
export function sendDownload(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  file: files.FileRow,
  converted?: files.Variant,
) {
  return sendFile(
    request,
    reply,
    converted ? variantOf(converted) : blobOf(ctx, file),
    {
      'content-disposition': files.contentDisposition('attachment', files.downloadName(file.name, file.mime_type, converted?.mime)),
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
  file: files.FileRow,
  size: files.TransformRequest,
) {
  const variant = await files.thumbnail(ctx, file, size);
  return sendFile(request, reply, variantOf(variant), {
    'content-disposition': files.contentDisposition('inline', files.downloadName(file.name, file.mime_type, variant.mime)),
    // The content of a file id never changes, so neither does its thumbnail.
    'cache-control': 'private, max-age=86400',
  });
}

/** A file's content shown in the page (Range, ETag), under the caching its page allows; not a download. */
export function sendInline(ctx: ServiceContext, request: FastifyRequest, reply: FastifyReply, file: files.FileRow, cacheControl: string) {
  return sendFile(request, reply, blobOf(ctx, file), {
    'content-disposition': files.contentDisposition('inline', files.downloadName(file.name, file.mime_type)),
    'cache-control': cacheControl,
  });
}
