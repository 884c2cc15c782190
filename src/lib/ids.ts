import { randomBytes, randomFillSync } from 'node:crypto';

/** Type prefixes of every resource id (DECISIONS.md, "Identifiers and formats"). */
export type IdPrefix =
  | 'tag'
  | 'fld'
  | 'file'
  | 'wh'
  | 'dlv'
  | 'evt'
  | 'key'
  | 'usr'
  | 'org'
  | 'view'
  | 'req'
  | 'blk'
  | 'att'
  | 'ses'
  | 'shr'
  | 'aud'
  | 'mail'
  | 'tok'
  | 'inv';

/*
 * Ids are a prefix and a lower-case ULID: 10 characters of milliseconds, then 80 random bits
 * (Crockford's base32). Minted for every request (its request id) and every view, so made
 * here rather than by a ULID library that draws each of the 16 random characters with its
 * own crypto call: the random bytes come from a pool one randomFillSync refills 4 KB at a time.
 *
 * Monotonic, as the ULID spec describes: the first id of a millisecond draws a random part,
 * the next ones increment it, so ids minted in the same millisecond sort in creation order.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
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

/** Every 10-bit value as its two characters: the low half, new with every id, takes four look-ups. */
const PAIRS = Array.from({ length: 1024 }, (_, value) => encode(value, 2));
const TWENTY_BITS = 2 ** 20;

function encodeHalf(value: number): string {
  const upper = Math.floor(value / TWENTY_BITS);
  const lower = value % TWENTY_BITS;
  return PAIRS[upper >> 10]! + PAIRS[upper & 1023]! + PAIRS[lower >> 10]! + PAIRS[lower & 1023]!;
}

let lastMs = -1;
let high = 0;
let low = 0;
/** The time and the random part's high half: the same for every id of a millisecond. */
let timeAndHigh = '';

function startMillisecond(nowMs: number): void {
  lastMs = nowMs;
  high = random40();
  low = random40();
  timeAndHigh = encode(nowMs, TIME_CHARS) + encode(high, HALF_CHARS);
}

function increment(): void {
  low += 1;
  if (low < HALF_RANGE) return;
  // Carry into the high half (2^80 ids in one millisecond cannot happen).
  low = 0;
  high = (high + 1) % HALF_RANGE;
  timeAndHigh = encode(lastMs, TIME_CHARS) + encode(high, HALF_CHARS);
}

/** A prefixed, time-sortable id such as `tag_01jd3w6m3k8c0v4q9ztb7e2x5r`. */
export function newId(prefix: IdPrefix): string {
  const nowMs = Date.now();
  if (nowMs > lastMs) startMillisecond(nowMs);
  else increment();
  return `${prefix}_${timeAndHigh}${encodeHalf(low)}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters drawn uniformly from [0-9A-Za-z] (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Fixed-width base62 rendering of a non-negative integer. */
export function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

/*
 * The shape of an id, checked before any query: a malformed id cannot name a row, and some
 * malformed input cannot even reach the database (PostgreSQL refuses NUL in text). One pattern
 * per resource, used by the route schemas (validation and the OpenAPI document alike).
 * The 26 characters are accepted from [0-9a-z] rather than the exact ULID alphabet, so the
 * check is about shape, not about how an id was minted.
 */
const ID_BODY = '[0-9a-z]{26}';

/** The pattern of an id with this prefix, e.g. `^fld_[0-9a-z]{26}$`. */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}_${ID_BODY}$`;
}

/** The characters of a short id: 8 issued at random, or 3 to 64 chosen by the tag's owner. */
const SHORT_ID_BODY = '[A-Za-z0-9_-]{3,64}';

/** A tag's short id: its address on public pages. */
export const SHORT_ID_PATTERN = `^${SHORT_ID_BODY}$`;

/** Where a tag is named, its id or its short id. */
export const TAG_REF_PATTERN = `^(?:tag_${ID_BODY}|${SHORT_ID_BODY})$`;

const ID_SHAPES = new Map<IdPrefix, RegExp>();
const SHORT_ID = new RegExp(SHORT_ID_PATTERN);

/** Whether `value` has the shape of an id with this prefix (services check before a look-up). */
export function isId(prefix: IdPrefix, value: string): boolean {
  let shape = ID_SHAPES.get(prefix);
  if (!shape) ID_SHAPES.set(prefix, (shape = new RegExp(idPattern(prefix))));
  return shape.test(value);
}

/** Whether `value` has the shape of a tag's short id. */
export function isShortId(value: string): boolean {
  return SHORT_ID.test(value);
}
