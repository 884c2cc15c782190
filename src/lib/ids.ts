import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Type prefixes of every resource id (DECISIONS.md, "Identifiers and formats"). */
export type IdPrefix =
  | 'tag' | 'fld' | 'file' | 'wh' | 'dlv' | 'evt' | 'key' | 'usr' | 'org' | 'view' | 'req' | 'blk' | 'att';

// ulid's own generator asks the system for one random byte per character (16 calls an id);
// the same cryptographic bytes, fetched 4 KB at a time.
const pool = new Uint8Array(4096);
let poolOffset = pool.length;
function pooledRandom(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]! / 256;
}

// Monotonic so that ids minted in the same millisecond still sort in creation order.
const nextUlid = monotonicFactory(pooledRandom);

/** A prefixed, time-sortable id such as `tag_01jd3w6m3k8c0v4q9ztb7e2x5r`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
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
