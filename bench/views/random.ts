/**
 * Seeded randomness for the view generator: Math.random cannot be seeded, and the same
 * arguments should give the same dataset, so runs on different days stay comparable.
 */

/** sfc32: small and fast, good enough statistically for synthetic traffic. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    const t = (this.a + this.b + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  /** Uniform whole number in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    return Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next());
  }
}

/**
 * A bijective 32-bit mix (lowbias32): distinct inputs give distinct outputs, so ids derived
 * from it never collide, and attributes derived from it look random but stay fixed per input.
 */
export function mix32(input: number): number {
  let x = input >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Walker's alias method: O(1) draws from a fixed discrete distribution (tags, profiles). */
export class AliasTable {
  private readonly probability: Float64Array;
  private readonly alias: Int32Array;

  constructor(weights: ArrayLike<number>) {
    const n = weights.length;
    let total = 0;
    for (let i = 0; i < n; i++) total += weights[i]!;
    if (n === 0 || !(total > 0)) throw new Error('AliasTable needs a positive weight');
    this.probability = new Float64Array(n);
    this.alias = new Int32Array(n);
    const scaled = Float64Array.from({ length: n }, (_, i) => (weights[i]! * n) / total);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length > 0 && large.length > 0) {
      const s = small.pop()!;
      const l = large.pop()!;
      this.probability[s] = scaled[s]!;
      this.alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      (scaled[l]! < 1 ? small : large).push(l);
    }
    for (const i of [...small, ...large]) this.probability[i] = 1;
  }

  /** An index, drawn with `u` uniform in [0, 1). */
  pick(u: number): number {
    const scaled = u * this.probability.length;
    const i = Math.floor(scaled);
    return scaled - i < this.probability[i]! ? i : this.alias[i]!;
  }
}

/** A cumulative table for a handful of weights (hours of a day), searched linearly. */
export function cumulative(weights: number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => (out[i] = sum += w));
  return out.map((v) => v / sum);
}

export function pickCumulative(table: Float64Array, u: number): number {
  let i = 0;
  while (i < table.length - 1 && u >= table[i]!) i++;
  return i;
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** A ULID for the view's own time, as the service's newId would have minted then (lower case). */
export function viewUlid(ms: number, random: Random): string {
  let time = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[rest % 32]! + time;
    rest = Math.floor(rest / 32);
  }
  let tail = '';
  for (let part = 0; part < 4; part++) {
    let bits = random.int(1 << 20);
    for (let i = 0; i < 4; i++) {
      tail += CROCKFORD[bits & 31];
      bits >>>= 5;
    }
  }
  return time + tail;
}
