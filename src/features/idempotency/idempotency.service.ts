import type { ServiceContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import * as repo from './idempotency.repository.js';

/** How long a key's response is replayed (Stripe's 24 hours). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * A claim older than this is taken to be abandoned (its server stopped mid-request) and may be
 * taken over by a retry; until then a retry gets 409. Long enough for a large upload.
 */
export const CLAIM_LEASE_MS = 10 * 60 * 1000;

/** Deleted per statement by the purge, so no statement holds the database for long. */
const PURGE_BATCH = 1000;

/** A POST carrying an Idempotency-Key, as the HTTP layer describes it. */
export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  /** SHA-256 of what makes two requests the same one: method, path and body. */
  fingerprint: string;
  /** The id of the request; the claim is held in its name. */
  requestId: string;
}

/** The answer of the request that ran, as it is replayed. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The request id of the request that ran. */
  requestId: string;
}

const inUse = () =>
  new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry once it has finished');

const reused = () =>
  new ApiError(
    'idempotency_key_reused',
    'This Idempotency-Key was already used for a different request (another method, path or body); use a new key for a new request',
    { field: 'Idempotency-Key' },
  );

function storedResponse(row: repo.IdempotencyRow): StoredResponse {
  return {
    status: row.status!,
    headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
    body: row.response_body ?? '',
    requestId: row.request_id,
  };
}

/**
 * Claims the key for this request, or answers for it. Undefined: the key is now this
 * request's, run the operation (then completeIdempotentRequest or releaseIdempotentRequest).
 * A StoredResponse: the same request ran before, replay this. Throws 422 for the key used with
 * another request, 409 while the request that holds it is still running.
 */
export async function claimIdempotencyKey(ctx: ServiceContext, request: IdempotentRequest): Promise<StoredResponse | undefined> {
  const nowMs = ctx.clock.now().getTime();
  const at = new Date(nowMs).toISOString();
  const claim: repo.IdempotencyRow = {
    api_key_id: request.apiKeyId,
    idempotency_key: request.key,
    fingerprint: request.fingerprint,
    created_at: at,
    locked_at: at,
    request_id: request.requestId,
    status: null,
    response_headers: null,
    response_body: null,
  };
  // Twice at most: a record that disappears between the insert and the read (released after
  // a 5xx, or purged) is claimed on the second pass.
  for (let pass = 0; pass < 2; pass++) {
    if (await repo.insertClaim(ctx.db, claim)) return undefined;
    const existing = await repo.findRecord(ctx.db, request.apiKeyId, request.key);
    if (!existing) continue;
    // Past the window a key is free again, purged or not.
    if (Date.parse(existing.created_at) <= nowMs - IDEMPOTENCY_WINDOW_MS) {
      if (await repo.replaceRecord(ctx.db, existing, claim)) return undefined;
      throw inUse();
    }
    if (existing.fingerprint !== request.fingerprint) throw reused();
    if (existing.status !== null) return storedResponse(existing);
    if (Date.parse(existing.locked_at) <= nowMs - CLAIM_LEASE_MS && (await repo.replaceRecord(ctx.db, existing, claim))) return undefined;
    throw inUse();
  }
  throw inUse();
}

/** Keeps the response of the request that holds the key, for its retries to replay. */
export async function completeIdempotentRequest(
  ctx: ServiceContext,
  request: IdempotentRequest,
  response: Omit<StoredResponse, 'requestId'>,
): Promise<void> {
  await repo.completeRecord(ctx.db, request.apiKeyId, request.key, request.requestId, {
    status: response.status,
    response_headers: JSON.stringify(response.headers),
    response_body: response.body,
  });
}

/** Gives the key up (the request failed on the server's side), so that a retry runs anew. */
export async function releaseIdempotentRequest(ctx: ServiceContext, request: IdempotentRequest): Promise<void> {
  await repo.deleteClaim(ctx.db, request.apiKeyId, request.key, request.requestId);
}

/** Deletes the records older than the window, in small statements; returns how many went. */
export async function purgeExpiredIdempotencyKeys(ctx: ServiceContext): Promise<number> {
  const before = new Date(ctx.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString();
  let purged = 0;
  for (;;) {
    const deleted = await repo.deleteRecordsCreatedBefore(ctx.db, before, PURGE_BATCH);
    purged += deleted;
    if (deleted < PURGE_BATCH) return purged;
  }
}
