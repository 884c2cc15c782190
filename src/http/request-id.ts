import { randomFillSync } from 'node:crypto';

/**
 * Request ids: `req_` and a lower-case ULID, the format of every other id (lib/ids.ts), minted
 * for every request. The ulid package draws each of the 16 random characters with its own
 * crypto.getRandomValues call (each one also a getpid system call inside OpenSSL), which cost
 * about 8% of a cheap authenticated request; here the random bytes come from a pool that one
 * randomFillSync call refills 4 KB at a time.
 *
 * Monotonic like ulid's factory (and lib/ids.ts): the first id of a millisecond draws a random
 * part, the next ones increment it, so ids sort in the order requests arrived.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford's base32, lower case
const TIME_CHARS = 10;
const HALF_CHARS = 8; // the 80-bit random part as two 40-bit halves of 8 characters
const HALF_RANGE = 2 ** 40;

const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** A uniformly random 40-bit number (5 pooled bytes). */
function random40(): number {
  if (poolOffset + 5 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let value = 0;
  for (let i = 0; i < 5; i++) value = value * 256 + pool[poolOffset++]!;
  return value;
}

function encode(value: number, chars: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < chars; i++) {
    out = ALPHABET[rest % 32]! + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** Every 10-bit value as its two characters: the per-request half takes four look-ups. */
const PAIRS = Array.from({ length: 1024 }, (_, value) => encode(value, 2));
const TWENTY_BITS = 2 ** 20;

/** `encode(value, HALF_CHARS)` for the random part's low half, which changes with every id. */
function encodeHalf(value: number): string {
  const upper = Math.floor(value / TWENTY_BITS);
  const lower = value % TWENTY_BITS;
  return PAIRS[upper >> 10]! + PAIRS[upper & 1023]! + PAIRS[lower >> 10]! + PAIRS[lower & 1023]!;
}

let lastMs = -1;
let high = 0;
let low = 0;
/** `req_`, the time and the random part's high half: the same for every id of a millisecond. */
let prefix = '';

function startMillisecond(nowMs: number): void {
  lastMs = nowMs;
  high = random40();
  low = random40();
  prefix = `req_${encode(nowMs, TIME_CHARS)}${encode(high, HALF_CHARS)}`;
}

/** Ids minted in the same millisecond continue from the last one, as ulid's monotonic factory does. */
function increment(): void {
  low += 1;
  if (low < HALF_RANGE) return;
  // Carry into the high half (2^80 ids in one millisecond cannot happen).
  low = 0;
  high = (high + 1) % HALF_RANGE;
  prefix = `req_${encode(lastMs, TIME_CHARS)}${encode(high, HALF_CHARS)}`;
}

/** A fresh `req_<ulid>` for Fastify's genReqId. */
export function newRequestId(): string {
  const nowMs = Date.now();
  if (nowMs > lastMs) startMillisecond(nowMs);
  else increment();
  return prefix + encodeHalf(low);
}
