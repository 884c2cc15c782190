import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesIfNoneMatch } from './conditional.js';
import { ApiError } from '../errors.js';

/** What can be sent: a known size and ETag, and bytes that can be opened whole or in part. */
export interface Sendable {
  size: number;
  etag: string;
  contentType: string;
  open(range?: { start: number; end: number }): Promise<Readable>;
}

/**
 * User content must never run as this origin: no sniffing into HTML, and a sandboxed,
 * resource-less document if a browser renders it anyway (an SVG opened directly, say).
 */
export const USER_CONTENT_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
};

type Range = { start: number; end: number } | 'unsatisfiable' | undefined;

/**
 * One `bytes=` range (RFC 9110 §14.1.2): `a-b`, `a-` or `-n`. Several ranges, other units and
 * malformed headers are ignored (the whole content is sent), as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): Range {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== '' && Number(match[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** An If-Range that names another version means: send the whole (current) content. */
function rangeApplies(request: FastifyRequest, etag: string): boolean {
  const ifRange = request.headers['if-range'];
  return ifRange === undefined || ifRange === etag;
}

/**
 * Sends `body` with ETag / If-None-Match (304), Range (206 / 416) and the user-content headers.
 * `onComplete` runs once a response carrying the whole content has been fully written.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Sendable,
  headers: Record<string, string>,
  onComplete?: () => void,
): Promise<FastifyReply> {
  reply.headers({ ...USER_CONTENT_HEADERS, ...headers, etag: body.etag, 'accept-ranges': 'bytes' });
  if (matchesIfNoneMatch(request.headers['if-none-match'], body.etag)) return reply.code(304).send();
  const range = rangeApplies(request, body.etag) ? parseRange(request.headers.range, body.size) : undefined;
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${body.size}`);
    throw new ApiError('range_not_satisfiable', `The range is outside the content (${body.size} bytes)`);
  }
  const whole = !range || (range.start === 0 && range.end === body.size - 1);
  if (whole && onComplete && request.method === 'GET') {
    reply.raw.once('finish', onComplete);
  }
  if (range) {
    reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${body.size}`)
      .header('content-length', String(range.end - range.start + 1));
  } else {
    reply.code(200).header('content-length', String(body.size));
  }
  reply.type(body.contentType);
  if (request.method === 'HEAD') return reply.send();
  return reply.send(await body.open(range));
}
