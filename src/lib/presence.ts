import type { Redis } from 'ioredis';

/** Who is looking at a tag right now: sessions (views) seen within the last minute. */
export interface Session {
  id: string;
  started_at: string;
  device: string;
  country: string | null;
}

export interface PresenceStore {
  /** A view started, or its page sent a heartbeat. */
  touch(tagId: string, session: Session, nowMs: number): Promise<void>;
  active(tagId: string, nowMs: number): Promise<Session[]>;
  close(): Promise<void>;
}

export const ACTIVE_WINDOW_MS = 60_000;

/** A session and when it was last seen. */
interface Sighting extends Session {
  seen: number;
}

/**
 * In this process: the embedded mode. Touched by every view of every tag, but read only when an
 * Enterprise key asks for a tag's real-time figures, so it must cost a view little and forget
 * on its own. A busy page holds a minute of sessions, tens of thousands of them, all of which
 * the garbage collector traces at every full collection: each is one object, in one entry of
 * its tag's map keyed by the session's own id (a session object, a sighting object and a key
 * string per session, in two maps, made collecting a fifth of a recorded view's CPU).
 *
 * A tag's map is in order of last sight (a touch moves its session to the end), so its start
 * holds the sessions gone quiet; each touch of the tag drops those. Tags nobody touches any
 * more are swept once a window: the store holds at most two windows of sessions.
 */
export class MemoryPresenceStore implements PresenceStore {
  private readonly byTag = new Map<string, Map<string, Sighting>>();
  private sweptAt = Number.NEGATIVE_INFINITY;

  async touch(tagId: string, session: Session, nowMs: number): Promise<void> {
    let sessions = this.byTag.get(tagId);
    if (!sessions) this.byTag.set(tagId, (sessions = new Map()));
    const seen = sessions.get(session.id);
    if (seen) {
      sessions.delete(session.id);
      seen.seen = nowMs;
      sessions.set(session.id, seen);
    } else {
      const { id, started_at, device, country } = session;
      sessions.set(id, { id, started_at, device, country, seen: nowMs });
    }
    forgetQuiet(sessions, nowMs);
    if (nowMs - this.sweptAt >= ACTIVE_WINDOW_MS) this.sweep(nowMs);
  }

  /** Sessions held, of all tags: what this store costs in memory (for tests and monitoring). */
  held(): number {
    let held = 0;
    for (const sessions of this.byTag.values()) held += sessions.size;
    return held;
  }

  async active(tagId: string, nowMs: number): Promise<Session[]> {
    const sessions = this.byTag.get(tagId);
    if (!sessions) return [];
    forgetQuiet(sessions, nowMs);
    // Filtered too: after the clock stepped back, a quiet session can sit behind a newer one.
    const recent = [...sessions.values()].filter((sighting) => sighting.seen >= nowMs - ACTIVE_WINDOW_MS);
    return recent
      .map(({ id, started_at, device, country }) => ({ id, started_at, device, country }))
      .sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  async close(): Promise<void> {
    this.byTag.clear();
  }

  private sweep(nowMs: number): void {
    this.sweptAt = nowMs;
    for (const [tagId, sessions] of this.byTag) {
      forgetQuiet(sessions, nowMs);
      if (sessions.size === 0) this.byTag.delete(tagId);
    }
  }
}

/** Drops the sessions at the start of a tag's map that were last seen a window or more ago. */
function forgetQuiet(sessions: Map<string, { seen: number }>, nowMs: number): void {
  for (const [id, sighting] of sessions) {
    if (sighting.seen >= nowMs - ACTIVE_WINDOW_MS) return;
    sessions.delete(id);
  }
}

/** Shared by every instance when REDIS_URL is set: a sorted set of sessions per tag, by last seen. */
export class RedisPresenceStore implements PresenceStore {
  constructor(private readonly redis: Redis) {}

  async touch(tagId: string, session: Session, nowMs: number): Promise<void> {
    const key = `tagsvc:presence:${tagId}`;
    await this.redis
      .multi()
      .zadd(key, nowMs, JSON.stringify(session))
      .zremrangebyscore(key, '-inf', nowMs - ACTIVE_WINDOW_MS)
      .pexpire(key, ACTIVE_WINDOW_MS * 2)
      .exec();
  }

  async active(tagId: string, nowMs: number): Promise<Session[]> {
    const members = await this.redis.zrangebyscore(`tagsvc:presence:${tagId}`, nowMs - ACTIVE_WINDOW_MS, '+inf');
    return members.map((m) => JSON.parse(m) as Session).sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  /** The connection is the process's (see lib/redis.ts): its opener closes it. */
  async close(): Promise<void> {}
}

/** Redis when REDIS_URL is set (viewers seen by every instance), else this process's memory. */
export function createPresenceStore(redis: Redis | undefined): PresenceStore {
  return redis ? new RedisPresenceStore(redis) : new MemoryPresenceStore();
}
