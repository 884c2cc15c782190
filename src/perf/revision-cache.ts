import { LRUCache } from 'lru-cache';

/**
 * Values this process derived from stored rows, kept by key and the row's revision: a random
 * text its writer sets anew every time it writes the row. A reader that reads the revision in
 * its snapshot and finds the value kept under it has exactly what the row holds, whatever any
 * process has written since, so no change needs announcing. Used for the visitor sets
 * (features/analytics/kept-sets.ts, migrations 0031 and 0033): a year's overview of a large
 * account reads about 8 MB of them otherwise, most of its time.
 *
 * A row without a revision ('') is never kept. Bounded by the bytes the values hold (`sizeOf`),
 * least recently used out first.
 */
export class RevisionCache<V extends object> {
  private readonly kept: LRUCache<string, { revision: string; value: V }>;

  constructor(maxBytes: number, sizeOf: (value: V) => number) {
    this.kept = new LRUCache({ maxSize: maxBytes, sizeCalculation: (entry) => Math.max(1, sizeOf(entry.value)) });
  }

  /** The value kept for `key` at `revision`, if any. */
  get(key: string, revision: string): V | undefined {
    const entry = revision === '' ? undefined : this.kept.get(key);
    return entry?.revision === revision ? entry.value : undefined;
  }

  /** Keeps `value` for `key` at `revision` (unless the row has none), and returns it. */
  keep(key: string, revision: string, value: V): V {
    if (revision !== '') this.kept.set(key, { revision, value });
    return value;
  }
}
