import { describe, expect, it } from 'vitest';
import {
  decodeStoredSet,
  decodeVisitorSet,
  DistinctVisitors,
  encodeVisitorSet,
  unionVisitorSet,
} from '../../src/features/analytics/visitor-sets.js';

/**
 * The stored form of a closed day's visitors (numbers as 16-bit differences with an escape for
 * large ones) and the bitmap that unions them. Reports at scale depend on both being exact; the
 * HTTP tests only reach small visitor numbers, so the large differences are proven here.
 */
describe('visitor sets', () => {
  const edges = [1, 2, 3, 0xfffe, 0xfffe + 0xfffe, 0xfffe + 0xfffe + 0xffff, 200_000, 1_000_000, 2 ** 31, 2 ** 32 - 1];

  it('round-trip every difference size, including the escape and the largest 32-bit number', () => {
    expect(decodeVisitorSet(encodeVisitorSet(edges))).toEqual(edges);
    expect(decodeVisitorSet(encodeVisitorSet([]))).toEqual([]);
    // Two bytes a small difference, six for an escaped one.
    expect(Buffer.from(encodeVisitorSet([1, 2, 3]), 'base64')).toHaveLength(6);
    expect(Buffer.from(encodeVisitorSet([0x10000]), 'base64')).toHaveLength(6);
  });

  it('a union of a stored set and more numbers is ascending and holds each once', () => {
    expect(decodeVisitorSet(unionVisitorSet(encodeVisitorSet([5, 9, 70_000]), [9, 1, 3_000_000]))).toEqual([1, 5, 9, 70_000, 3_000_000]);
    expect(decodeVisitorSet(unionVisitorSet(undefined, [4, 4, 2]))).toEqual([2, 4]);
  });

  it('counts distinct visitors across sets, loose numbers and not yet numbered ids; clear starts over', () => {
    const counter = new DistinctVisitors();
    counter.addSet(encodeVisitorSet([1, 2, 1_000_000]));
    counter.addSet(encodeVisitorSet([2, 3, 1_000_000, 5_000_000]));
    counter.addNumber(3);
    counter.addNumber(4);
    counter.addKey('cookie-a');
    counter.addKey('cookie-a');
    counter.addKey('cookie-b');
    // 1, 2, 3, 4, 1,000,000, 5,000,000 and two ids without numbers.
    expect(counter.size).toBe(8);
    counter.clear();
    expect(counter.size).toBe(0);
    counter.addSet(encodeVisitorSet(edges));
    expect(counter.size).toBe(edges.length);
  });

  it('a month set is a bitmap of words where its numbers are dense, a day set where sparse; either adds back exactly its numbers, decoded or not', () => {
    const monthSetOf = (numbers: number[]) => {
      const counter = new DistinctVisitors();
      for (const n of numbers) counter.addNumber(n);
      return counter.toMonthSet();
    };
    // Added decoded (as kept) or straight from the text: the same numbers either way.
    const numbersOf = (monthSet: string, more: number[] = []) => {
      const [decoded, text] = [new DistinctVisitors(), new DistinctVisitors()];
      decoded.addDecoded(decodeStoredSet(monthSet));
      text.addSet(monthSet);
      for (const n of more) [decoded, text].forEach((counter) => counter.addNumber(n));
      expect(text.toDecoded()).toEqual(decoded.toDecoded());
      return decoded.size;
    };
    // 3,000 of 4,000 numbers far from 0: 125 words from word 31,250 on.
    const dense = Array.from({ length: 4000 }, (_, i) => 1_000_000 + i).filter((n) => n % 4 !== 0);
    const denseSet = monthSetOf(dense);
    expect(denseSet.startsWith('*31250:')).toBe(true);
    expect(Buffer.from(denseSet.slice('*31250:'.length), 'base64')).toHaveLength(125 * 4);
    expect(numbersOf(denseSet)).toBe(3000);
    // Adding back the left-out numbers and some already in.
    expect(numbersOf(denseSet, [1_000_000, 1_000_001, 1_000_004, 5])).toBe(3003);
    const sparse = [3, 70_000, 1_000_000, 5_000_000];
    const sparseSet = monthSetOf(sparse);
    expect(decodeVisitorSet(sparseSet)).toEqual(sparse);
    expect(numbersOf(sparseSet, [3, 4])).toBe(5);
    expect(monthSetOf([])).toBe('');
    expect(numbersOf('')).toBe(0);
    const withKeys = new DistinctVisitors();
    withKeys.addKey('cookie-a');
    expect(() => withKeys.toMonthSet()).toThrow(/numbered visitors only/);
  });

  it('a decoded union holds exactly its numbers, in words of its own', () => {
    const union = new DistinctVisitors();
    union.addSet(encodeVisitorSet(edges));
    union.addNumber(40);
    const decoded = union.toDecoded();
    union.addNumber(41);
    const copy = new DistinctVisitors();
    copy.addDecoded(decoded);
    expect(copy.size).toBe(edges.length + 1);
    copy.addNumber(41);
    copy.addSet(encodeVisitorSet([1, 40, 2 ** 32 - 1]));
    expect(copy.size).toBe(union.size);
    expect(new DistinctVisitors().toDecoded()).toEqual({ first: 0, words: new Uint32Array(0) });
    const withKeys = new DistinctVisitors();
    withKeys.addKey('cookie-a');
    expect(() => withKeys.toDecoded()).toThrow(/numbered visitors only/);
  });

  it('a released count hands on an empty bitmap: the next counts see none of its numbers', () => {
    const dense = Array.from({ length: 5000 }, (_, i) => 3_000_000 + i * 7);
    const first = new DistinctVisitors();
    first.addSet(encodeVisitorSet(dense));
    first.addNumber(12);
    expect(first.size).toBe(dense.length + 1);
    first.release();
    expect(first.size).toBe(0);
    // The next counts take the released bitmaps: only what each adds is counted, at any number.
    const counts = Array.from({ length: 5 }, () => new DistinctVisitors());
    counts.forEach((count, i) => count.addNumber(3_000_000 + i * 7));
    expect(counts.map((count) => count.size)).toEqual([1, 1, 1, 1, 1]);
    expect(counts[0]!.toDecoded()).toEqual({ first: (3_000_000 / 32) | 0, words: new Uint32Array([1 << (3_000_000 % 32)]) });
    for (const count of counts) count.release();
    const again = new DistinctVisitors();
    again.addDecoded(decodeStoredSet(encodeVisitorSet([5, 2 ** 32 - 1])));
    expect(again.size).toBe(2);
  });
});
