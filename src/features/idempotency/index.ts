/** Idempotency-Key records: what the HTTP layer and the purge job may use. */
export {
  claimIdempotencyKey,
  completeIdempotentRequest,
  IDEMPOTENCY_WINDOW_MS,
  purgeExpiredIdempotencyKeys,
  releaseIdempotentRequest,
  type IdempotentRequest,
  type StoredResponse,
} from './idempotency.service.js';
