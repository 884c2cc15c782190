import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';

/**
 * Per-process caches for hot lookups (API keys, tags) that are exact within a bound:
 * - a change made by this process is announced with announceChange(topic), and seen at once;
 * - a change made by another process reaches every cache of that database through its change
 *   feed: PostgreSQL notifications (pg-change-feed.ts), from the next request, or SQLite's
 *   data_version counter, within OTHER_PROCESS_CHANGE_DELAY_MS.
 */
export type CacheTopic = 'keys' | 'tags';

/**
 * Tells a cache whether other processes may have changed what it holds. A generation is a
 * number that changes whenever they may have; undefined means changes cannot be followed right
 * now, and nothing may be served from or stored in the cache.
 */
export interface ChangeFeed {
  /** The generation, taking in every commit acknowledged before this call. */
  settled(topic: CacheTopic): number | undefined | Promise<number | undefined>;
  /** The generation as last seen, without waiting: has anything changed since settled()? */
  current(topic: CacheTopic): number | undefined;
}

const feeds = new WeakMap<object, ChangeFeed>();
const caches = new WeakMap<object, Map<CacheTopic, ExactCache<object>>>();
const changes = new EventEmitter();
changes.setMaxListeners(0);

/** Called when a database is opened that can follow other connections' commits. */
export function registerChangeFeed(db: object, feed: ChangeFeed): void {
  feeds.set(db, feed);
}

/**
 * How long a change committed by another process (the command line, a second server on the
 * same SQLite file) may go unseen by this process's caches. Changes this process makes are
 * announced at once (announceChange) and never wait for it.
 */
export const OTHER_PROCESS_CHANGE_DELAY_MS = 100;

/**
 * SQLite's feed: its counter of other connections' commits (data_version), the same for every
 * topic. Reading it takes a read lock on the WAL index (two fcntl calls, with the call into
 * SQLite about a tenth of a cached request's CPU), so it is read at most once every
 * OTHER_PROCESS_CHANGE_DELAY_MS rather than for every request: another process's commit is
 * then seen within that delay, as the key cache allows (at most a second). While `frozen()`
 * (a read snapshot holds the connection: data_version stands still and reads may be old) the
 * caches serve and keep nothing.
 */
export function counterFeed(counter: () => number, frozen: () => boolean): ChangeFeed {
  let value = 0;
  let readAt = Number.NEGATIVE_INFINITY;
  const read = () => {
    if (frozen()) return undefined;
    const now = performance.now();
    if (now - readAt >= OTHER_PROCESS_CHANGE_DELAY_MS) {
      value = counter();
      readAt = now;
    }
    return value;
  };
  return { settled: read, current: read };
}

/** Drops every cached entry of `topic` in this process (after a write this process made). */
export function announceChange(topic: CacheTopic): void {
  changes.emit(topic);
}

/** The cache as of one lookup: what it held then, and a store that refuses values a change may have made stale. */
export interface CacheSnapshot<V> {
  get(key: string): V | undefined;
  /** Keeps `value` only if no change was seen since the snapshot was taken (the value may predate it). */
  set(key: string, value: V): void;
}

export class ExactCache<V extends object> {
  private readonly entries = new LRUCache<string, V>({ max: 10_000 });
  private seen: number | undefined;
  /** Counts this process's own clears, so a value loaded before one is not kept after it. */
  private clears = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly topic: CacheTopic,
  ) {}

  /**
   * The cache as of now, or undefined while it cannot be exact (then look the row up). Without
   * a promise when the feed answers at once (SQLite): the lookup it serves may then finish
   * without a trip through the microtask queue.
   */
  snapshot(): CacheSnapshot<V> | undefined | Promise<CacheSnapshot<V> | undefined> {
    const generation = this.feed.settled(this.topic);
    return generation instanceof Promise ? generation.then((settled) => this.at(settled)) : this.at(generation);
  }

  private at(generation: number | undefined): CacheSnapshot<V> | undefined {
    if (generation === undefined) return undefined;
    if (generation !== this.seen) {
      this.entries.clear();
      this.seen = generation;
    }
    const clears = this.clears;
    return {
      get: (key) => this.entries.get(key),
      set: (key, value) => {
        if (this.feed.current(this.topic) === generation && this.seen === generation && this.clears === clears)
          this.entries.set(key, value);
      },
    };
  }

  /**
   * What the cache last held for `key`, exact or not: for a reader that would rather show the
   * last known row than nothing while the database is out of reach (stale-if-error). Never for
   * anything that grants access: a row changed during the outage is not seen until it ends.
   */
  lastKnown(key: string): V | undefined {
    return this.entries.get(key);
  }

  clear(): void {
    this.entries.clear();
    this.clears += 1;
  }
}

/** The cache of `topic` for this database, or undefined where it has no change feed. */
export function exactCache<V extends object>(db: object, topic: CacheTopic): ExactCache<V> | undefined {
  const feed = feeds.get(db);
  if (!feed) return undefined;
  let byTopic = caches.get(db);
  if (!byTopic) {
    byTopic = new Map();
    caches.set(db, byTopic);
  }
  let cache = byTopic.get(topic);
  if (!cache) {
    const created = new ExactCache<object>(feed, topic);
    changes.on(topic, () => created.clear());
    byTopic.set(topic, created);
    cache = created;
  }
  return cache as unknown as ExactCache<V>;
}
