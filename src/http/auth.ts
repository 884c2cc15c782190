import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import type { Environment } from '../db/schema.js';
import { ApiError, failureFields, forbidden, unauthorized } from '../errors.js';
import { actorOfKey, PLAN_LIMITS, recordKeyUse, type KeyActor, type Permission } from '../features/accounts/index.js';
import { ipInRanges } from '../lib/ip.js';
import { andThen, type MaybePromise } from '../lib/maybe-promise.js';
import type { EndpointBucket, RateLimiter } from './rate-limiter.js';

/** `permission: null` marks a route any valid key may call; every /v1 route must say which. */
export type RoutePermission = Permission | null;

declare module 'fastify' {
  interface FastifyRequest {
    actor: KeyActor;
  }
  interface FastifyContextConfig {
    permission?: RoutePermission;
  }
}

const LAST_USED_INTERVAL_MS = 60_000;

/** Methods that change nothing. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function keyFromHeaders(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1] : authorization.trim();
  }
  const header = request.headers['x-api-key'];
  return Array.isArray(header) ? header[0] : header;
}

function hostOf(url: string | undefined): string | undefined {
  return url ? new URL(url).host.toLowerCase() : undefined;
}

/** A Host header as URL.host writes it for `protocol` (lowercase, default port dropped); undefined if malformed. */
function normalizedHost(host: string, protocol: string): string | undefined {
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return undefined;
  }
}

function tooManyFailures(retryAfter: number): ApiError {
  return new ApiError('rate_limit_exceeded', 'Too many failed authentication attempts from this address', { retryAfter });
}

/** Turns the API key of a request into a KeyActor, or throws the spec's 401/403/429. */
export class Authenticator {
  private readonly lastUsedWrites = new Map<string, number>();
  private readonly sandboxHost: string | undefined;
  private readonly sandboxProtocol: string = 'https:';

  constructor(
    private readonly ctx: ServiceContext,
    private readonly limiter: RateLimiter,
  ) {
    const production = hostOf(ctx.config.publicBaseUrl);
    const sandbox = hostOf(ctx.config.sandboxBaseUrl);
    // The host rule only applies when the operator runs a distinct sandbox address.
    if (sandbox && sandbox !== production) {
      this.sandboxHost = sandbox;
      this.sandboxProtocol = new URL(ctx.config.sandboxBaseUrl!).protocol;
    }
  }

  /**
   * The guard of every /v1 route, in the order of ARCHITECTURE.md: key → address, plan,
   * permission → rate limits. Sets request.actor. Returns a promise only when something must
   * be waited for (a key not in the cache, a shared limiter store, key limits on), so a cached
   * key with limits off passes without a trip through the microtask queue.
   */
  guard(request: FastifyRequest, reply: FastifyReply, permission: RoutePermission, bucket: EndpointBucket | undefined): MaybePromise<void> {
    return andThen(this.authenticate(request), (actor) => this.admit(request, reply, actor, permission, bucket));
  }

  private admit(
    request: FastifyRequest,
    reply: FastifyReply,
    actor: KeyActor,
    permission: RoutePermission,
    bucket: EndpointBucket | undefined,
  ): MaybePromise<void> {
    // A change gets a copy of the cached actor carrying the request it came through, for the
    // audit log. A read writes nothing: it keeps the cached actor itself, by which reads cache
    // their serialized bodies (GET /v1/me).
    request.actor = READS.has(request.method) ? actor : { ...actor, origin: { requestId: request.id, ip: request.ip } };
    try {
      this.authorize(request, actor, permission);
    } catch (error) {
      return this.limiter.annotate(reply, actor, bucket).then(() => Promise.reject(error as Error));
    }
    return this.limiter.admit(reply, actor, bucket);
  }

  /**
   * The caller's key as a KeyActor, or 401; addresses that keep failing get 429. An address
   * already over the limit is refused before any look-up. A failure is then counted in one
   * atomic check-and-count that also decides its answer, so concurrent bad keys get exactly
   * the limit of 401s: checking first and counting after let every request in flight pass.
   */
  private authenticate(request: FastifyRequest): MaybePromise<KeyActor> {
    return andThen(this.limiter.authRetryAfter(request.ip), (retryAfter) => this.identifyUnlessRefused(request, retryAfter));
  }

  private identifyUnlessRefused(request: FastifyRequest, retryAfter: number): MaybePromise<KeyActor> {
    if (retryAfter > 0) throw tooManyFailures(retryAfter);
    let actor: MaybePromise<KeyActor>;
    try {
      actor = this.identify(request);
    } catch (error) {
      return this.failed(request, error);
    }
    if (actor instanceof Promise) {
      return actor.then(
        (found) => this.used(found),
        (error: unknown) => this.failed(request, error),
      );
    }
    return this.used(actor);
  }

  private async failed(request: FastifyRequest, error: unknown): Promise<never> {
    if (error instanceof ApiError && error.code === 'unauthorized') {
      const refusedFor = await this.limiter.admitAuthFailure(request.ip);
      if (refusedFor > 0) throw tooManyFailures(refusedFor);
    }
    throw error;
  }

  private used(actor: KeyActor): KeyActor {
    this.recordUse(actor.key.id, this.ctx.clock.now().getTime());
    return actor;
  }

  private identify(request: FastifyRequest): MaybePromise<KeyActor> {
    const value = keyFromHeaders(request);
    if (!value) throw unauthorized('Missing API key: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"');
    return andThen(actorOfKey(this.ctx, value), (actor) => this.onItsHost(request, actor));
  }

  private onItsHost(request: FastifyRequest, actor: KeyActor): KeyActor {
    this.checkHost(request, actor.environment);
    return actor;
  }

  /**
   * With a distinct sandbox host, a request is for the sandbox exactly when its Host is the
   * sandbox host, and for production otherwise. Matching the production host exactly instead
   * would let any other name of the server (its IP, an internal alias) take both kinds of key.
   */
  private checkHost(request: FastifyRequest, environment: Environment): void {
    if (!this.sandboxHost) return;
    const onSandbox = normalizedHost(request.host, this.sandboxProtocol) === this.sandboxHost;
    if (environment === 'live' && onSandbox) {
      throw unauthorized(`Live keys (svc_live_) cannot be used with the sandbox; use ${this.ctx.config.publicBaseUrl}/v1`);
    }
    if (environment === 'test' && !onSandbox) {
      throw unauthorized(`Test keys (svc_test_) only work with the sandbox; use ${this.ctx.config.sandboxBaseUrl}/v1`);
    }
  }

  /** 403 when the address, the plan or the key's permissions do not allow the route. */
  authorize(request: FastifyRequest, actor: KeyActor, permission: RoutePermission): void {
    if (actor.key.ipAllowlist && !ipInRanges(request.ip, actor.key.ipAllowlist)) {
      throw forbidden('This API key is not allowed from this IP address');
    }
    if (!PLAN_LIMITS[actor.plan].apiAccess) throw forbidden('API access requires the Pro or Enterprise plan');
    if (permission && !actor.permissions.includes(permission)) {
      throw forbidden(`This API key lacks the ${permission} permission`);
    }
  }

  // last_used_at is written at most once a minute per key, never on every request.
  private recordUse(keyId: string, nowMs: number): void {
    const last = this.lastUsedWrites.get(keyId) ?? 0;
    if (nowMs - last < LAST_USED_INTERVAL_MS) return;
    this.lastUsedWrites.set(keyId, nowMs);
    recordKeyUse(this.ctx, keyId, new Date(nowMs).toISOString()).catch((error: unknown) => {
      this.ctx.log.warn({ ...failureFields(error), key_id: keyId }, 'could not record last_used_at');
    });
  }
}
