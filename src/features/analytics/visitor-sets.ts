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
 * A closed month's set of a scope (scope_month_visitors) is stored in the smaller of two
 * encodings. A dense bitmap: BITMAP_MARK, the index of its first 32-bit word, ':', then the
 * base64 of the words from there on, little-endian (bit n is visitor n). Numbers are given as
 * days close, so a month's visitors of a busy scope sit close together: at one visitor in 16
 * numbers or more the bitmap is the smaller, and adding it is an OR of words, no decoding.
 * Otherwise (a small scope among many) the day sets' encoding above. The mark is no base64
 * character, so the two cannot be confused.
 */
const BITMAP_MARK = '*';

/** The 32-bit words of base64 text. */
function wordsOf(text: string): Uint32Array {
  const bytes = Buffer.from(text, 'base64');
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const words = new Uint32Array(bytes.byteLength / 4);
  for (let i = 0; i < words.length; i++) words[i] = bytes.readUInt32LE(i * 4);
  return words;
}

/** A stored set (a day set, or a month set of either encoding) decoded: its units, or its bitmap's words from word `first`. */
export type DecodedSet = { units: Uint16Array } | { first: number; words: Uint32Array };

/**
 * Decodes a stored set of either kind (a day set never starts with BITMAP_MARK) into arrays of
 * its own, not views of a shared buffer, to be kept (perf/revision-cache.ts).
 */
export function decodeStoredSet(text: string): DecodedSet {
  const bitmap = bitmapOf(text);
  return bitmap ? { first: bitmap.first, words: new Uint32Array(bitmap.words) } : { units: new Uint16Array(unitsOf(text)) };
}

/** A month set's bitmap (its words possibly a view of a shared buffer); undefined for the other encoding. */
function bitmapOf(text: string): { first: number; words: Uint32Array } | undefined {
  if (!text.startsWith(BITMAP_MARK)) return undefined;
  const colon = text.indexOf(':');
  return { first: Number(text.slice(1, colon)), words: wordsOf(text.slice(colon + 1)) };
}

/** The bytes a decoded set holds. */
export const decodedSize = (set: DecodedSet): number => ('units' in set ? set.units.byteLength : set.words.byteLength);

/**
 * Bitmaps of released counts (DistinctVisitors.release), all zero, for the next counts: a bitmap
 * spans the numbers up to the highest added, and visitors are numbered across all tags, so a
 * busy tag's count reaches half a megabyte. Allocating and doubling a new one for each count
 * took 6 % of a year report's CPU on the thread that answers everyone, besides the page faults
 * and the garbage (src/perf/README.md). A few are kept: counts made at once (a report's periods).
 */
const spareBitmaps: Uint32Array[] = [];
const SPARE_BITMAPS = 4;

/**
 * Counts distinct visitors: numbered ones in a growable bitmap, and visitors not numbered yet
 * (seen only on days not closed yet) by their id. Adding only sets bits; the bits set are
 * counted when the size is asked for. Testing each bit first to count it as it is added is a
 * branch the processor cannot predict (a visitor is often in several sets): it made a year's
 * union of an account's daily sets twice as slow.
 */
export class DistinctVisitors {
  private bits = spareBitmaps.pop() ?? new Uint32Array(1024);
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

  /** Adds every number of a stored set of either kind (a day set, or a month set: see BITMAP_MARK). */
  addSet(text: string): void {
    const bitmap = bitmapOf(text);
    if (bitmap) this.addWords(bitmap.first, bitmap.words);
    else this.addUnits(unitsOf(text));
  }

  /**
   * Adds every number of a set's 16-bit units: decoded straight into the bitmap, one pass. The
   * loop repeats decodeVisitorSet's on purpose: this is a year report's hottest loop
   * (src/perf/README.md).
   */
  private addUnits(units: Uint16Array): void {
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

  /** Adds every number of a decoded set: a bitmap's words OR-ed in, or a day set's units. */
  addDecoded(set: DecodedSet): void {
    if ('units' in set) return this.addUnits(set.units);
    this.addWords(set.first, set.words);
  }

  /** ORs in a bitmap's words from word `first` on. */
  private addWords(first: number, words: Uint32Array): void {
    const last = first + words.length - 1;
    if (last >= this.bits.length) this.grow(last);
    const bits = this.bits;
    for (let i = 0; i < words.length; i++) bits[first + i]! |= words[i]!;
    if (last > this.highestWord) this.highestWord = last;
  }

  /** The words of the bitmap from its first set bit's to its last's. */
  private span(): { first: number; words: Uint32Array } {
    let first = 0;
    while (first <= this.highestWord && this.bits[first] === 0) first++;
    let last = this.highestWord;
    while (last >= first && this.bits[last] === 0) last--;
    return { first, words: this.bits.subarray(first, last + 1) };
  }

  /** The numbered visitors added, decoded as a bitmap of their own (to be kept, see addDecoded). */
  toDecoded(): DecodedSet {
    if (this.unnumbered.size > 0) throw new Error('a decoded set holds numbered visitors only');
    const { first, words } = this.span();
    return { first, words: words.slice() };
  }

  /** The numbered visitors added, as a month set (see BITMAP_MARK). */
  toMonthSet(): string {
    if (this.unnumbered.size > 0) throw new Error('a month set holds numbered visitors only');
    const { first, words } = this.span();
    const last = first + words.length - 1;
    // A number takes a day set's encoding 2 bytes at least; a bitmap takes 4 bytes a word.
    if (words.length > 0 && words.length * 4 < this.size * 2) {
      const bytes = LITTLE_ENDIAN ? Buffer.from(words.buffer, words.byteOffset, words.byteLength) : Buffer.allocUnsafe(words.byteLength);
      if (!LITTLE_ENDIAN) words.forEach((word, i) => bytes.writeUInt32LE(word, i * 4));
      return `${BITMAP_MARK}${first}:${bytes.toString('base64')}`;
    }
    const numbers = [];
    for (let word = first; word <= last; word++) {
      for (let v = this.bits[word]!; v !== 0; v &= v - 1) numbers.push(word * 32 + 31 - Math.clz32(v & -v));
    }
    return encodeVisitorSet(numbers);
  }

  addKey(key: string): void {
    this.unnumbered.add(key);
  }

  clear(): void {
    this.bits.fill(0, 0, this.highestWord + 1);
    this.highestWord = -1;
    this.unnumbered.clear();
  }

  /** Hands the bitmap, cleared, to the next count made; this one is empty and unused after. */
  release(): void {
    this.clear();
    if (spareBitmaps.length < SPARE_BITMAPS) spareBitmaps.push(this.bits);
    this.bits = new Uint32Array(0);
  }

  private grow(word: number): void {
    let length = Math.max(this.bits.length, 1024);
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
