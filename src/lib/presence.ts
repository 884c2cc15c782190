import type { Redis } from 'ioredis';
import { fromRedis } from './redis.js';

/** Who is looking at a tag right now: sessions (views) seen within the last minute. */
export interface Session {
  id: string;
  started_at: string;
  device: string;
  country: string | null;
  /** Whose view it is (features/analytics/visitor.ts): one person's reloads are one viewer. */
  visitor: string;
}

/** A session as real-time analytics shows it: no view id, no visitor id. */
export type ActiveSession = Omit<Session, 'id' | 'visitor'>;

export interface PresenceStore {
  /** A view started: its session's first sighting. */
  started(tagId: string, session: Session, nowMs: number): Promise<void>;
  /** A view's page sent a heartbeat: its session is still open. */
  touch(tagId: string, session: Session, nowMs: number): Promise<void>;
  /**
   * The visitors seen within the last ACTIVE_WINDOW_MS, each once, by their latest session (the
   * one started last), oldest first: a person who reloads the page five times is one viewer.
   */
  active(tagId: string, nowMs: number): Promise<ActiveSession[]>;
  close(): Promise<void>;
}

export const ACTIVE_WINDOW_MS = 60_000;

/** Each visitor's latest session of those given, oldest first. */
function latestPerVisitor<V>(sightings: Iterable<{ visitor: V; session: ActiveSession }>): ActiveSession[] {
  const latest = new Map<V, ActiveSession>();
  for (const { visitor, session } of sightings) {
    const known = latest.get(visitor);
    // ISO 8601 instants of one format sort as text.
    if (!known || known.started_at <= session.started_at) latest.set(visitor, session);
  }
  return [...latest.values()].sort((a, b) => a.started_at.localeCompare(b.started_at));
}

/**
 * A visitor id as a 53-bit number (cyrb53): what the ring keeps instead of the string, which it
 * would hold for a minute (see TagSessions). Two of a tag's visitors of the same minute share a
 * number about once in 10^15 pairs.
 */
function visitorCode(visitor: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < visitor.length; i++) {
    const c = visitor.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A session and when it was last seen. */
interface Sighting extends Session {
  seen: number;
}

/**
 * One tag's sessions. Views started in the last window sit in a ring of typed arrays, oldest
 * first: a busy page has tens of thousands of them, and anything allocated per view and held for
 * a minute is what the garbage collector must promote and trace (objects and a key string per
 * view made collecting a fifth of a recorded view's CPU; growing arrays, still a fifth). The ring
 * only grows when full, so a steady stream of views allocates nothing. Only the sessions whose
 * page sends heartbeats (a browser running its script) are objects, by view id.
 */
class TagSessions {
  private startedMs: Float64Array<ArrayBuffer> = new Float64Array(64);
  private devices: Uint16Array<ArrayBuffer> = new Uint16Array(64);
  private countries: Uint16Array<ArrayBuffer> = new Uint16Array(64);
  private visitors: Float64Array<ArrayBuffer> = new Float64Array(64);
  private head = 0;
  private length = 0;
  /** Sessions with a heartbeat, in order of last sight. */
  readonly beating = new Map<string, Sighting>();

  get size(): number {
    return this.length + this.beating.size;
  }

  add(startedMs: number, device: number, country: number, visitor: number): void {
    if (this.length === this.startedMs.length) this.grow();
    const at = (this.head + this.length) % this.startedMs.length;
    this.startedMs[at] = startedMs;
    this.devices[at] = device;
    this.countries[at] = country;
    this.visitors[at] = visitor;
    this.length += 1;
  }

  /** The views of the ring, oldest first. */
  *views(): Generator<{ startedMs: number; device: number; country: number; visitor: number }> {
    for (let k = 0; k < this.length; k++) {
      const at = (this.head + k) % this.startedMs.length;
      yield { startedMs: this.startedMs[at]!, device: this.devices[at]!, country: this.countries[at]!, visitor: this.visitors[at]! };
    }
  }

  /** Drops what was last seen a window or more ago. */
  forget(nowMs: number): void {
    const cutoff = nowMs - ACTIVE_WINDOW_MS;
    while (this.length > 0 && this.startedMs[this.head]! < cutoff) {
      this.head = (this.head + 1) % this.startedMs.length;
      this.length -= 1;
    }
    for (const [id, sighting] of this.beating) {
      if (sighting.seen >= cutoff) break;
      this.beating.delete(id);
    }
  }

  private grow(): void {
    const capacity = this.startedMs.length * 2;
    // Copied oldest first, so the ring starts again at 0.
    const reorder = <T extends Float64Array<ArrayBuffer> | Uint16Array<ArrayBuffer>>(from: T, to: T): T => {
      to.set(from.subarray(this.head));
      to.set(from.subarray(0, this.head), from.length - this.head);
      return to;
    };
    this.startedMs = reorder(this.startedMs, new Float64Array(capacity));
    this.devices = reorder(this.devices, new Uint16Array(capacity));
    this.countries = reorder(this.countries, new Uint16Array(capacity));
    this.visitors = reorder(this.visitors, new Float64Array(capacity));
    this.head = 0;
  }
}

/**
 * In this process: the embedded mode. Touched by every view of every tag, but read only when an
 * Enterprise key asks for a tag's real-time figures, so a view costs it four numbers, and it
 * forgets on its own: each sighting of a tag drops that tag's quiet sessions, and tags nobody
 * sees any more are swept once a window. It holds at most two windows of sessions.
 */
export class MemoryPresenceStore implements PresenceStore {
  private readonly byTag = new Map<string, TagSessions>();
  private sweptAt = Number.NEGATIVE_INFINITY;
  /** Devices and countries as small numbers (a handful of distinct values). */
  private readonly codes = new Map<string | null, number>();
  private readonly values: (string | null)[] = [];

  async started(tagId: string, session: Session, nowMs: number): Promise<void> {
    const sessions = this.sessionsOf(tagId);
    sessions.add(Date.parse(session.started_at), this.code(session.device), this.code(session.country), visitorCode(session.visitor));
    this.seen(sessions, nowMs);
  }

  async touch(tagId: string, session: Session, nowMs: number): Promise<void> {
    const sessions = this.sessionsOf(tagId);
    const { id, started_at, device, country, visitor } = session;
    sessions.beating.delete(id);
    sessions.beating.set(id, { id, started_at, device, country, visitor, seen: nowMs });
    this.seen(sessions, nowMs);
  }

  /** Sessions held, of all tags: what this store costs in memory (for tests and monitoring). */
  held(): number {
    let held = 0;
    for (const sessions of this.byTag.values()) held += sessions.size;
    return held;
  }

  async active(tagId: string, nowMs: number): Promise<ActiveSession[]> {
    const sessions = this.byTag.get(tagId);
    if (!sessions) return [];
    sessions.forget(nowMs);
    const cutoff = nowMs - ACTIVE_WINDOW_MS;
    const seen: Array<{ visitor: number; session: ActiveSession }> = [];
    for (const view of sessions.views()) {
      // Filtered too: after the clock stepped back, an older view can sit behind a newer one.
      if (view.startedMs < cutoff) continue;
      const started_at = new Date(view.startedMs).toISOString();
      seen.push({
        visitor: view.visitor,
        session: { started_at, device: this.values[view.device]!, country: this.values[view.country] ?? null },
      });
    }
    // A session with a heartbeat is listed above while its view is in the window; after, here.
    for (const sighting of sessions.beating.values()) {
      if (sighting.seen >= cutoff && Date.parse(sighting.started_at) < cutoff) {
        const { started_at, device, country } = sighting;
        seen.push({ visitor: visitorCode(sighting.visitor), session: { started_at, device, country } });
      }
    }
    return latestPerVisitor(seen);
  }

  async close(): Promise<void> {
    this.byTag.clear();
  }

  private sessionsOf(tagId: string): TagSessions {
    let sessions = this.byTag.get(tagId);
    if (!sessions) this.byTag.set(tagId, (sessions = new TagSessions()));
    return sessions;
  }

  private code(value: string | null): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.push(value) - 1;
      this.codes.set(value, code);
    }
    return code;
  }

  private seen(sessions: TagSessions, nowMs: number): void {
    sessions.forget(nowMs);
    if (nowMs - this.sweptAt < ACTIVE_WINDOW_MS) return;
    this.sweptAt = nowMs;
    for (const [tagId, other] of this.byTag) {
      other.forget(nowMs);
      if (other.size === 0) this.byTag.delete(tagId);
    }
  }
}

/**
 * Shared by every instance when REDIS_URL is set: a sorted set of sessions per tag, by last seen.
 * A session's member is the same JSON at its start and at each heartbeat (the same fields in the
 * same order), so a heartbeat moves its score and adds no member.
 */
export class RedisPresenceStore implements PresenceStore {
  constructor(private readonly redis: Redis) {}

  async touch(tagId: string, session: Session, nowMs: number): Promise<void> {
    const key = `tagsvc:presence:${tagId}`;
    await fromRedis(
      this.redis
        .multi()
        .zadd(key, nowMs, JSON.stringify(session))
        .zremrangebyscore(key, '-inf', nowMs - ACTIVE_WINDOW_MS)
        .pexpire(key, ACTIVE_WINDOW_MS * 2)
        .exec(),
    );
  }

  async started(tagId: string, session: Session, nowMs: number): Promise<void> {
    await this.touch(tagId, session, nowMs);
  }

  async active(tagId: string, nowMs: number): Promise<ActiveSession[]> {
    const members = await fromRedis(this.redis.zrangebyscore(`tagsvc:presence:${tagId}`, nowMs - ACTIVE_WINDOW_MS, '+inf'));
    return latestPerVisitor(
      members.map((member) => {
        const { started_at, device, country, visitor } = JSON.parse(member) as Session;
        return { visitor, session: { started_at, device, country } };
      }),
    );
  }

  /** The connection is the process's (see lib/redis.ts): its opener closes it. */
  async close(): Promise<void> {}
}

/** Redis when REDIS_URL is set (viewers seen by every instance), else this process's memory. */
export function createPresenceStore(redis: Redis | undefined): PresenceStore {
  return redis ? new RedisPresenceStore(redis) : new MemoryPresenceStore();
}
