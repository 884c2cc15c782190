import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ApiError, invalidRequest, unknownField, validationError } from '../errors.js';
import type { Actor } from '../features/accounts/index.js';
import * as files from '../features/files/index.js';
import { closeAfterResponse } from './linger.js';

/** Room for the multipart framing and the small text fields around the file. */
const MULTIPART_OVERHEAD = 1024 * 1024;
const FIELD_BYTES = 16 * 1024;

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
 * in any order) streamed to disk (and the object store) under the actor's plan, then committed
 * as the tag's file.
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
    if (Number.isFinite(declared) && declared > target.maxBytes + MULTIPART_OVERHEAD) throw files.fileTooLarge(target.maxBytes);
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
      fields[field] = field === 'name' ? files.requireValidName(part.value, 'name') : files.requireValidDescription(part.value);
    }
    if (!received) throw validationError('file', 'file is required');
    return await files.commitUpload(ctx, target, received, fields);
  } catch (error) {
    // Refused before the body was read to its end: answer now and close the connection,
    // so the rest of a large body is never read (Node would otherwise drain it).
    if (!request.raw.complete) closeAfterResponse(request, reply);
    throw fromMultipartError(error);
  } finally {
    await files.discardReceived(ctx, received);
  }
}
