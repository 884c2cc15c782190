import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';

/**
 * Per-process caches for hot lookups (API keys, tags) that are never stale:
 * - a change made by another process shows in the database's change counter (SQLite's
 *   data_version), and every cache of that database drops its entries;
 * - a change made by this process is announced with announceChange(topic).
 * Where the database has no such counter (PostgreSQL), nothing is cached: a lookup per request.
 */
export type CacheTopic = 'keys' | 'tags';

const counters = new WeakMap<object, () => number>();
const caches = new WeakMap<object, Map<CacheTopic, ExactCache<object>>>();
const changes = new EventEmitter();
changes.setMaxListeners(0);

/** Called when a database is opened that can report other connections' commits. */
export function registerChangeCounter(db: object, counter: () => number): void {
  counters.set(db, counter);
}

/** Drops every cached entry of `topic` in this process (after a write this process made). */
export function announceChange(topic: CacheTopic): void {
  changes.emit(topic);
}

export class ExactCache<V extends object> {
  private readonly entries = new LRUCache<string, V>({ max: 10_000 });
  private seen: number | undefined;

  constructor(private readonly counter: () => number) {}

  get(key: string): V | undefined {
    const current = this.counter();
    if (current !== this.seen) {
      this.entries.clear();
      this.seen = current;
      return undefined;
    }
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The cache of `topic` for this database, or undefined where caching cannot be exact. */
export function exactCache<V extends object>(db: object, topic: CacheTopic): ExactCache<V> | undefined {
  const counter = counters.get(db);
  if (!counter) return undefined;
  let byTopic = caches.get(db);
  if (!byTopic) {
    byTopic = new Map();
    caches.set(db, byTopic);
  }
  let cache = byTopic.get(topic);
  if (!cache) {
    const created = new ExactCache<object>(counter);
    changes.on(topic, () => created.clear());
    byTopic.set(topic, created);
    cache = created;
  }
  return cache as unknown as ExactCache<V>;
}
