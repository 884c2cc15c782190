import { endianness } from 'node:os';

/**
 * Sets of visitor numbers (visitors.id). A closed day's distinct visitors of a tag are stored as
 * their numbers, ascending, each as its difference from the one before: a 16-bit little-endian
 * unit, or for a difference of 0xFFFF or more the unit 0xFFFF and the difference in two more
 * (low, high). About 2 bytes a visitor, decoded by a tight loop over 16-bit units. Counting
 * distinct visitors over a period is a union of those sets in a bitmap: exact, and linear in the
 * stored numbers. In base64 text rather than a binary column: PostgreSQL sends bytea as hex,
 * slowly enough to be the slowest step of a year's report; text goes out as stored.
 */

const ESCAPE = 0xffff;
// Where the host's byte order is the stored one, decoded bytes are read as 16-bit units in place.
const LITTLE_ENDIAN = endianness() === 'LE';

export function encodeVisitorSet(sortedNumbers: ArrayLike<number>): string {
  const units = new Uint16Array(sortedNumbers.length * 3);
  let length = 0;
  let previous = 0;
  for (let i = 0; i < sortedNumbers.length; i++) {
    const delta = sortedNumbers[i]! - previous;
    previous = sortedNumbers[i]!;
    if (delta < ESCAPE) {
      units[length++] = delta;
    } else {
      units[length++] = ESCAPE;
      units[length++] = delta & 0xffff;
      units[length++] = delta >>> 16;
    }
  }
  const bytes = Buffer.allocUnsafe(length * 2);
  for (let i = 0; i < length; i++) bytes.writeUInt16LE(units[i]!, i * 2);
  return bytes.toString('base64');
}

/** The set's 16-bit units. */
function unitsOf(text: string): Uint16Array {
  const bytes = Buffer.from(text, 'base64');
  if (LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  const units = new Uint16Array(bytes.byteLength / 2);
  for (let i = 0; i < units.length; i++) units[i] = bytes.readUInt16LE(i * 2);
  return units;
}

export function decodeVisitorSet(text: string): number[] {
  const units = unitsOf(text);
  const numbers: number[] = [];
  let n = 0;
  for (let i = 0; i < units.length;) {
    let delta = units[i++]!;
    if (delta === ESCAPE) {
      delta = units[i]! + units[i + 1]! * 0x10000;
      i += 2;
    }
    n += delta;
    numbers.push(n);
  }
  return numbers;
}

/** The union of a stored set and more numbers, ascending and each once. */
export function unionVisitorSet(stored: string | undefined, more: Iterable<number>): string {
  const all = new Set<number>(stored ? decodeVisitorSet(stored) : []);
  for (const n of more) all.add(n);
  return encodeVisitorSet(Uint32Array.from(all).sort());
}

/**
 * Counts distinct visitors: numbered ones in a growable bitmap, and visitors not numbered yet
 * (seen only on days not closed yet) by their id. Adding only sets bits; the bits set are
 * counted when the size is asked for. Testing each bit first to count it as it is added is a
 * branch the processor cannot predict (a visitor is often in several sets): it made a year's
 * union of an account's daily sets twice as slow.
 */
export class DistinctVisitors {
  private bits = new Uint32Array(1024);
  private highestWord = -1;
  private readonly unnumbered = new Set<string>();

  get size(): number {
    let numbered = 0;
    for (let word = 0; word <= this.highestWord; word++) numbered += bitCount(this.bits[word]!);
    return numbered + this.unnumbered.size;
  }

  addNumber(n: number): void {
    const word = n >>> 5;
    if (word >= this.bits.length) this.grow(word);
    this.bits[word]! |= 1 << (n & 31);
    if (word > this.highestWord) this.highestWord = word;
  }

  /**
   * Adds every number of a stored set: decoded straight into the bitmap, one pass. The loop
   * repeats decodeVisitorSet's on purpose: this is a year report's hottest loop (src/perf/README.md).
   */
  addSet(text: string): void {
    const units = unitsOf(text);
    let bits = this.bits;
    let n = 0;
    for (let i = 0; i < units.length;) {
      let delta = units[i++]!;
      if (delta === ESCAPE) {
        delta = units[i]! + units[i + 1]! * 0x10000;
        i += 2;
      }
      n += delta;
      const word = n >>> 5;
      if (word >= bits.length) {
        this.grow(word);
        bits = this.bits;
      }
      bits[word]! |= 1 << (n & 31);
    }
    // Ascending: the last number is the highest.
    if (n >>> 5 > this.highestWord) this.highestWord = n >>> 5;
  }

  addKey(key: string): void {
    this.unnumbered.add(key);
  }

  clear(): void {
    this.bits.fill(0, 0, this.highestWord + 1);
    this.highestWord = -1;
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

/** The bits set in a 32-bit word (SWAR population count). */
function bitCount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
