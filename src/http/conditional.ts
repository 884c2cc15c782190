import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * True when an If-None-Match header matches `etag` (RFC 9110 §13.1.2): a list of entity tags,
 * compared weakly (W/ ignored), or `*`.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const wanted = etag.replace(/^W\//, '');
  return header.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || tag.replace(/^W\//, '') === wanted;
  });
}

/** A body in memory with its entity tag: 304 when the client holds it already, else 200 with it. */
export function sendTagged(
  request: FastifyRequest,
  reply: FastifyReply,
  body: { body: Buffer | string; contentType: string; etag: string },
  cacheControl: string,
): FastifyReply {
  reply.header('etag', body.etag).header('cache-control', cacheControl);
  if (matchesIfNoneMatch(request.headers['if-none-match'], body.etag)) return reply.code(304).send();
  return reply.type(body.contentType).send(body.body);
}
