import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import {
  ApiError,
  failureFields,
  failureReason,
  InsufficientStorage,
  invalidRequest,
  isOutsideFault,
  unknownField,
  validationError,
  type DependencyUnavailable,
  type ErrorCode,
} from '../errors.js';
import { idPattern, newId, TAG_REF_PATTERN } from '../lib/ids.js';
import { fieldWithNul } from '../lib/text-fields.js';

/** What each id pattern names, for the messages of ids that do not have its shape. */
const NOUN_BY_ID_PATTERN = new Map<string, string>([
  [TAG_REF_PATTERN, 'Tag'],
  [idPattern('fld'), 'Folder'],
  [idPattern('file'), 'File'],
  [idPattern('wh'), 'Webhook'],
  [idPattern('dlv'), 'Delivery'],
]);

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/content/3/level` → `content[3].level`; the missing or unknown property is appended. */
export function fieldFromIssue(issue: AjvIssue): string | undefined {
  const segments = issue.instancePath.split('/').filter(Boolean);
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof extra === 'string') segments.push(extra);
  let field = '';
  for (const segment of segments) {
    field += /^\d+$/.test(segment) ? `[${segment}]` : field ? `.${segment}` : segment;
  }
  return field || undefined;
}

function describeIssue(issue: AjvIssue, field: string | undefined, context: string): string {
  const subject = field ?? `the ${context}`;
  switch (issue.keyword) {
    case 'required':
      return `${subject} is required`;
    case 'enum':
      return `${subject} must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern': {
      const noun = NOUN_BY_ID_PATTERN.get(issue.params.pattern as string);
      if (noun === 'Tag') return `${subject} must be a tag id (tag_…) or short id`;
      if (noun) return `${subject} must be a ${noun.toLowerCase()} id`;
      return `${subject} ${issue.message ?? 'is invalid'}`;
    }
    case 'type':
      // The whole body: missing, empty, or not an object.
      if (!field && context === 'body') return 'the body must be a JSON object';
      return `${subject} ${issue.message ?? 'is invalid'}`;
    default:
      return `${subject} ${issue.message ?? 'is invalid'}`;
  }
}

function fromValidation(error: FastifyError): ApiError {
  const issue = error.validation![0] as AjvIssue;
  const context = error.validationContext ?? 'request';
  // Every path parameter is an id: one of the wrong shape names nothing, exactly like a
  // well-formed id that does not exist, so it gets the same answer.
  if (context === 'params') {
    const noun = issue.keyword === 'pattern' ? NOUN_BY_ID_PATTERN.get(issue.params.pattern as string) : undefined;
    return new ApiError('not_found', `${noun ?? 'Resource'} not found`);
  }
  const field = fieldFromIssue(issue);
  if (issue.keyword === 'additionalProperties' && field) return unknownField(field);
  const message = describeIssue(issue, field, context === 'querystring' ? 'query' : context);
  return field ? validationError(field, message) : new ApiError('validation_error', message);
}

/** Maps framework errors (parsing, limits) onto the spec's codes. */
function fromFramework(error: FastifyError): ApiError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidRequest('Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalidRequest('Request body is not valid JSON');
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return invalidRequest('Request body is not valid JSON');
  }
  const status = error.statusCode;
  if (status === 404) return new ApiError('not_found', 'Not found');
  if (status && status >= 400 && status < 500) return invalidRequest(error.message);
  return undefined;
}

export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) return fromValidation(fastifyError);
  return fromFramework(fastifyError);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.details.retryAfter !== undefined) reply.header('retry-after', String(error.details.retryAfter));
  return reply.code(error.status).send({
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details.field !== undefined ? { field: error.details.field } : {}),
      ...(error.details.retryAfter !== undefined ? { retry_after: error.details.retryAfter } : {}),
      request_id: request.id,
    },
  });
}

/**
 * No text field takes NUL (PostgreSQL refuses it in text, SQLite would store it for a page or a
 * webhook to echo), so a body or query holding one is refused before the handler runs, naming
 * the field. Installed as a preHandler: after the schemas, whose messages are more precise.
 */
export function refuseNul(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const inQuery = fieldWithNul(request.query);
  const field = inQuery ?? fieldWithNul(request.body);
  if (field === undefined) return done();
  done(
    field ? validationError(field, `${field} must not contain NUL characters`) : invalidRequest('the body must not contain NUL characters'),
  );
}

/**
 * Errors Fastify raises while routing, before any hook runs (its frameworkErrors option): a path
 * that does not decode (`%ff`) or a path parameter over maxParamLength. Every path parameter is
 * an id, so both name nothing: 404, as for an unknown id. The path is never echoed.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      sendError(request, reply, new ApiError('not_found', 'Not found'));
      return;
    default:
      request.log.error({ err: error }, 'routing error');
      sendError(request, reply, new ApiError('internal_error', 'Something went wrong on our side; quote the request id if you report it'));
  }
}

const CLIENT_ERROR_MESSAGES: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'The request headers were not received in time',
  HPE_HEADER_OVERFLOW: 'The request headers are too large',
};

/**
 * A connection whose bytes are not HTTP (Node's clientError): there is no request to hand to
 * Fastify, so a minimal envelope is written to the socket by hand, with a fresh request id, and
 * the connection closed. Nothing received is echoed.
 */
export function clientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection is already gone; there is nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = newId('req');
  this.log.debug({ code: error.code, request_id: requestId }, 'malformed HTTP request');
  if (socket.writable) {
    const message = CLIENT_ERROR_MESSAGES[error.code ?? ''] ?? 'The request is not valid HTTP';
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const code: ErrorCode = timedOut ? 'request_timeout' : 'invalid_request';
    const body = JSON.stringify({ success: false, error: { code, message, request_id: requestId } });
    socket.write(
      `HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

/**
 * A fault outside the process (a dependency down, a full disk) as one log line naming what and
 * why: its stack says nothing about the cause, and there is one per request while it lasts.
 */
export function logOutsideFault(log: FastifyBaseLogger, error: DependencyUnavailable | InsufficientStorage): void {
  log.warn(failureFields(error), error instanceof InsufficientStorage ? 'no storage space left' : 'dependency unavailable');
}

/** Renders every error and unknown route in the envelope; internals never reach the client. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    if (reply.sent) return;
    const apiError = toApiError(error);
    // The client is gone (it cut an upload short): what failed is reading a body that will not
    // come, not a fault of ours. Its access-log line says so. Answered all the same, to nobody,
    // so the hooks that release what the request held (an Idempotency-Key's claim) run as for
    // any error. Gone: the socket is closed, or its peer has ended it (the socket may not be
    // destroyed yet when the body's early end reaches this handler).
    const { socket } = request.raw;
    if (socket.destroyed || socket.readableEnded) {
      request.log.info({ req: request, reason: failureReason(error) }, 'request aborted by the client');
      return sendError(request, reply, apiError ?? new ApiError('invalid_request', 'The request was not received whole'));
    }
    if (isOutsideFault(error)) logOutsideFault(request.log, error);
    if (apiError) return sendError(request, reply, apiError);
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      request,
      reply,
      new ApiError('internal_error', 'Something went wrong on our side; quote the request id if you report it'),
    );
  });
  // The path is not echoed: it is the caller's input, and can be anything.
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('not_found', `No route for ${request.method} on this path`)),
  );
}
