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
  counters.set(db, readOncePerTask(counter));
}

/**
 * Reading SQLite's counter takes a read lock on the WAL index (two fcntl calls, about 2.5 µs),
 * and one request may consult several caches (its key, then its tag). The value read is kept
 * until the current task of the event loop (an I/O callback or a timer, with the promise jobs
 * that follow it) is over, then read again. That keeps the caches exact: every request served
 * within the task arrived in that task's I/O or an earlier one, so before the read; a commit
 * finished before a request was sent is therefore seen by it.
 */
function readOncePerTask(counter: () => number): () => number {
  let value: number | undefined;
  const forget = () => {
    value = undefined;
  };
  return () => {
    if (value === undefined) {
      value = counter();
      // process.nextTick runs once the promise jobs queued so far (and any they queue) are done.
      process.nextTick(forget);
    }
    return value;
  };
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
