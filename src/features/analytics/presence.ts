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

/** In this process: the embedded mode. */
export class MemoryPresenceStore implements PresenceStore {
  private readonly tags = new Map<string, Map<string, { session: Session; seen: number }>>();

  /**
   * Each touch moves the session to the end of its tag's map, so the map stays in order of last
   * sight and the sessions gone quiet are at its start: they go here, a few at a time, so a tag
   * nobody asks about holds a minute of sessions, not every view since the process started.
   */
  async touch(tagId: string, session: Session, nowMs: number): Promise<void> {
    let sessions = this.tags.get(tagId);
    if (!sessions) this.tags.set(tagId, (sessions = new Map()));
    sessions.delete(session.id);
    sessions.set(session.id, { session, seen: nowMs });
    for (const [id, entry] of sessions) {
      if (entry.seen >= nowMs - ACTIVE_WINDOW_MS) break;
      sessions.delete(id);
    }
  }

  /** Sessions held for all tags, expired ones not yet dropped included: what this store costs in memory. */
  held(): number {
    let count = 0;
    for (const sessions of this.tags.values()) count += sessions.size;
    return count;
  }

  async active(tagId: string, nowMs: number): Promise<Session[]> {
    const sessions = this.tags.get(tagId);
    if (!sessions) return [];
    for (const [id, entry] of sessions) if (entry.seen < nowMs - ACTIVE_WINDOW_MS) sessions.delete(id);
    if (sessions.size === 0) this.tags.delete(tagId);
    return [...sessions.values()].map((entry) => entry.session).sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  async close(): Promise<void> {
    this.tags.clear();
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
