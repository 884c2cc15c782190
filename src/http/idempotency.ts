import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { ServiceContext } from '../context.js';
import { failureFields, validationError } from '../errors.js';
import {
  claimIdempotencyKey,
  completeIdempotentRequest,
  releaseIdempotentRequest,
  type IdempotentRequest,
} from '../features/idempotency/index.js';
import { ErrorBody } from './envelope.js';
import { closeAfterResponse } from './linger.js';

const HEADER = 'idempotency-key';
/** 1 to 255 printable ASCII characters (a UUID is the usual choice). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** The response headers a replay repeats; the rest (request id, rate limits) are the retry's own. */
const REPLAYED_HEADERS = ['content-type'];

/**
 * A field of a route's response `data` that is never kept with the response (a secret): it is
 * stored as null, and read afresh when the response is replayed. The record then holds nothing
 * secret, and a replay shows the field's current value (a secret rotated since, the new one).
 */
export interface RereadOnReplay {
  field: string;
  /** The field's current value, for the replay of the response whose `data` is given; may throw (404). */
  read(request: FastifyRequest, data: Record<string, unknown>): Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    rereadOnReplay?: RereadOnReplay;
  }
}

/** The response's `data` object, when the JSON body has one holding the field. */
function dataWith(body: { data?: unknown }, field: string): Record<string, unknown> | undefined {
  const data = body.data;
  return data !== null && typeof data === 'object' && Object.hasOwn(data, field) ? (data as Record<string, unknown>) : undefined;
}

/** The body as it is kept: the field set to null. Answers without it (errors) are kept as they are. */
function withFieldLeftOut(payload: string, field: string): string {
  const body = JSON.parse(payload) as { data?: unknown };
  const data = dataWith(body, field);
  if (!data) return payload;
  data[field] = null;
  return JSON.stringify(body);
}

/** The kept body with the field read again. */
async function withFieldReread(request: FastifyRequest, stored: string, reread: RereadOnReplay): Promise<string> {
  const body = JSON.parse(stored) as { data?: unknown };
  const data = dataWith(body, reread.field);
  if (!data) return stored;
  data[reread.field] = await reread.read(request, data);
  return JSON.stringify(body);
}

/**
 * A JSON value written with its object keys sorted, so that two bodies that differ only in key
 * order or spacing are the same request, as Stripe compares parameters rather than bytes.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? '';
}

/**
 * Method, path (with its query) and parsed body. A file upload's body is a stream its handler
 * reads, not parsed before it (request.body is empty): uploads are told apart by method and
 * path only (docs/idempotency.md).
 */
function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonicalJson(request.body)}`)
    .digest('hex');
}

function keyOf(header: string | string[]): string {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!VALID_KEY.test(value)) {
    throw validationError('Idempotency-Key', 'Idempotency-Key must be 1 to 255 printable ASCII characters (a UUID, for example)');
  }
  return value;
}

/**
 * Idempotency-Key on the POST routes of /v1, with Stripe's semantics (docs/idempotency.md): the
 * first request with a key runs and its response is kept for 24 hours; a retry with the same
 * key and request gets that response again with `Idempotent-Replayed: true`. Requests without
 * the header pay one header look-up; other methods pay nothing, as the hooks are only added to
 * POST routes.
 */
export class IdempotencyLayer {
  /** The claims held by requests in progress. */
  private readonly claims = new WeakMap<FastifyRequest, IdempotentRequest>();

  constructor(private readonly ctx: ServiceContext) {}

  /** Adds the hooks to a POST route, after its own (authentication has run by then). */
  addTo(route: RouteOptions): void {
    if (route.method !== 'POST') return;
    route.preHandler = [...[route.preHandler ?? []].flat(), this.preHandler];
    route.onSend = [...[route.onSend ?? []].flat(), this.onSend];
    const response = ((route.schema ??= {}).response ??= {}) as Record<number, unknown>;
    response[409] ??= { ...ErrorBody, description: 'A request with this Idempotency-Key is in progress (idempotency_key_in_use)' };
    response[422] ??= { ...ErrorBody, description: 'Idempotency-Key used for a different request (idempotency_key_reused)' };
  }

  // Callback style: a request without the header goes on at once, without a promise.
  private readonly preHandler = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    const header = request.headers[HEADER];
    if (header === undefined) return done();
    this.claim(request, reply, header).then(
      (replayed) => {
        if (!replayed) done();
      },
      (error: Error) => {
        this.skipUnreadBody(request, reply);
        done(error);
      },
    );
  };

  /**
   * An upload answered without running (replayed, or refused) has not been read: the
   * connection is closed after the answer rather than reading the rest of a large file.
   */
  private skipUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
    if (!request.raw.complete) closeAfterResponse(request, reply);
  }

  /** True when the request was answered with the stored response. */
  private async claim(request: FastifyRequest, reply: FastifyReply, header: string | string[]): Promise<boolean> {
    const claim: IdempotentRequest = {
      apiKeyId: request.actor.key.id,
      key: keyOf(header),
      fingerprint: fingerprintOf(request),
      requestId: request.id,
    };
    const stored = await claimIdempotencyKey(this.ctx, claim);
    if (!stored) {
      this.claims.set(request, claim);
      return false;
    }
    this.skipUnreadBody(request, reply);
    const reread = request.routeOptions.config.rereadOnReplay;
    const body = reread ? await withFieldReread(request, stored.body, reread) : stored.body;
    reply.code(stored.status).headers(stored.headers).header('idempotent-replayed', 'true').header('original-request-id', stored.requestId);
    reply.send(body);
    return true;
  }

  /**
   * Keeps the response for the retries, before it is sent: a client that got it can count on
   * the replay. Not kept, the key released so that a retry runs the operation again: a 5xx,
   * and the answer to a request whose body did not arrive whole (an upload cut off by the
   * network is the retry this is for; one refused before its end is refused again as cheaply).
   */
  private readonly onSend = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload?: unknown) => void,
  ): void => {
    const claim = this.claims.get(request);
    if (!claim) return done(null, payload);
    this.claims.delete(request);
    // POST answers are serialized JSON; anything else (a stream) could not be kept as text.
    const keep = reply.statusCode < 500 && request.raw.complete && typeof payload === 'string';
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const reread = request.routeOptions.config.rereadOnReplay;
    const settle = keep
      ? completeIdempotentRequest(this.ctx, claim, {
          status: reply.statusCode,
          headers,
          body: reread ? withFieldLeftOut(payload, reread.field) : payload,
        })
      : releaseIdempotentRequest(this.ctx, claim);
    // The operation ran: its answer goes out even if it could not be kept. The claim then
    // holds the key until its lease runs out (a retry meanwhile gets 409).
    settle.then(
      () => done(null, payload),
      (error: unknown) => {
        request.log.error(failureFields(error), 'could not record the Idempotency-Key response');
        done(null, payload);
      },
    );
  };
}
