/**
 * Sets of visitor numbers (visitors.id). A closed day's distinct visitors of a tag are stored as
 * their numbers, ascending, each as its difference from the one before in LEB128 (7 bits a
 * byte: about 2 bytes a visitor instead of 4), in base64 text. Counting distinct visitors over
 * a period is then a union of those sets in a bitmap: exact, and linear in the stored numbers.
 * Text rather than a binary column: PostgreSQL sends bytea as hex it encodes at about 100 MB/s,
 * the slowest step of a year's report; text goes out as it is stored.
 */

export function encodeVisitorSet(sortedNumbers: ArrayLike<number>): string {
  const bytes = Buffer.allocUnsafe(sortedNumbers.length * 5);
  let length = 0;
  let previous = 0;
  for (let i = 0; i < sortedNumbers.length; i++) {
    let delta = sortedNumbers[i]! - previous;
    previous = sortedNumbers[i]!;
    while (delta >= 0x80) {
      bytes[length++] = (delta & 0x7f) | 0x80;
      delta >>>= 7;
    }
    bytes[length++] = delta;
  }
  return bytes.toString('base64', 0, length);
}

/**
 * Decodes the set into `into` (grown when too small); returns the numbers and the array. One
 * flat loop: this runs over every visitor of every day of a report's period.
 */
function decodeInto(text: string, into: Uint32Array): { count: number; numbers: Uint32Array } {
  const bytes = Buffer.from(text, 'base64');
  // Each number takes at least one byte.
  const numbers = into.length >= bytes.length ? into : new Uint32Array(bytes.length);
  let count = 0;
  let n = 0;
  let delta = 0;
  let shift = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    // Integer operations throughout; >>> 0 keeps a fifth group (bits 28-31) unsigned.
    delta = (delta | ((byte & 0x7f) << shift)) >>> 0;
    if (byte & 0x80) {
      shift += 7;
    } else {
      n = (n + delta) >>> 0;
      numbers[count++] = n;
      delta = 0;
      shift = 0;
    }
  }
  return { count, numbers };
}

export function decodeVisitorSet(text: string): number[] {
  const { count, numbers } = decodeInto(text, new Uint32Array(0));
  return Array.from(numbers.subarray(0, count));
}

/** The union of a stored set and more numbers, ascending and each once. */
export function unionVisitorSet(stored: string | undefined, more: Iterable<number>): string {
  const all = new Set<number>(stored ? decodeVisitorSet(stored) : []);
  for (const n of more) all.add(n);
  return encodeVisitorSet(Uint32Array.from(all).sort());
}

/**
 * Counts distinct visitors: numbered ones in a growable bitmap, and visitors not numbered yet
 * (seen only on days not closed yet) by their id.
 */
export class DistinctVisitors {
  private bits = new Uint32Array(1024);
  private highestWord = -1;
  private readonly unnumbered = new Set<string>();
  private numbered = 0;
  /** Reused for decoding sets. */
  private scratch: Uint32Array = new Uint32Array(4096);

  get size(): number {
    return this.numbered + this.unnumbered.size;
  }

  addNumber(n: number): void {
    const word = n >>> 5;
    if (word >= this.bits.length) this.grow(word);
    const mask = 1 << (n & 31);
    if ((this.bits[word]! & mask) === 0) {
      this.bits[word]! |= mask;
      this.numbered++;
      if (word > this.highestWord) this.highestWord = word;
    }
  }

  addSet(text: string): void {
    const { count, numbers } = decodeInto(text, this.scratch);
    this.scratch = numbers;
    if (count === 0) return;
    // Ascending: the largest is last, so the bitmap grows at most once per set.
    if (numbers[count - 1]! >>> 5 >= this.bits.length) this.grow(numbers[count - 1]! >>> 5);
    const bits = this.bits;
    let added = 0;
    for (let i = 0; i < count; i++) {
      const n = numbers[i]!;
      const word = n >>> 5;
      const mask = 1 << (n & 31);
      if ((bits[word]! & mask) === 0) {
        bits[word]! |= mask;
        added++;
      }
    }
    this.numbered += added;
    if (numbers[count - 1]! >>> 5 > this.highestWord) this.highestWord = numbers[count - 1]! >>> 5;
  }

  addKey(key: string): void {
    this.unnumbered.add(key);
  }

  clear(): void {
    this.bits.fill(0, 0, this.highestWord + 1);
    this.highestWord = -1;
    this.numbered = 0;
    this.unnumbered.clear();
  }

  private grow(word: number): void {
    let length = this.bits.length;
    while (length <= word) length *= 2;
    const bits = new Uint32Array(length);
    bits.set(this.bits);
    this.bits = bits;
  }
}
