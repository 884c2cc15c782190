import { endianness } from 'node:os';

/**
 * Sets of visitor numbers (visitors.id). A closed day's distinct visitors of a tag are stored as
 * their numbers, ascending, 32-bit little-endian; counting distinct visitors over a period is
 * then a union of those arrays in a bitmap: exact, and linear in the stored numbers.
 */

const BYTES = 4;
// Where the host's byte order is the stored one, an aligned set is read in place.
const LITTLE_ENDIAN = endianness() === 'LE';

export function encodeVisitorSet(sortedNumbers: ArrayLike<number>): Buffer {
  const bytes = Buffer.allocUnsafe(sortedNumbers.length * BYTES);
  for (let i = 0; i < sortedNumbers.length; i++) bytes.writeUInt32LE(sortedNumbers[i]!, i * BYTES);
  return bytes;
}

/** The set's numbers: a view of the bytes when they can be read in place, else a copy. */
export function decodeVisitorSet(bytes: Uint8Array): Uint32Array {
  const length = bytes.byteLength / BYTES;
  if (LITTLE_ENDIAN && bytes.byteOffset % BYTES === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const numbers = new Uint32Array(length);
  for (let i = 0; i < length; i++) numbers[i] = view.getUint32(i * BYTES, true);
  return numbers;
}

/** The union of a stored set and more numbers, ascending and each once. */
export function unionVisitorSet(stored: Uint8Array | undefined, more: Iterable<number>): Buffer {
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

  addSet(bytes: Uint8Array): void {
    const numbers = decodeVisitorSet(bytes);
    // Ascending: the largest is last, so the bitmap grows at most once per set.
    if (numbers.length > 0 && numbers[numbers.length - 1]! >>> 5 >= this.bits.length) this.grow(numbers[numbers.length - 1]! >>> 5);
    const bits = this.bits;
    let added = 0;
    let highest = this.highestWord;
    for (let i = 0; i < numbers.length; i++) {
      const n = numbers[i]!;
      const word = n >>> 5;
      const mask = 1 << (n & 31);
      if ((bits[word]! & mask) === 0) {
        bits[word]! |= mask;
        added++;
        if (word > highest) highest = word;
      }
    }
    this.numbered += added;
    this.highestWord = highest;
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
