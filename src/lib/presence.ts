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

interface Sighting {
  tagId: string;
  session: Session;
  seen: number;
}

/**
 * In this process: the embedded mode. Touched by every view of every tag, but read only when an
 * Enterprise key asks for a tag's real-time figures, so it forgets on its own: every session
 * is also in one map in order of last sight (a touch moves it to the end), whose start holds the
 * sessions gone quiet; each touch drops those, a few at a time. The store then holds the last
 * minute's sessions, not every view since the process started, however many tags go quiet.
 */
export class MemoryPresenceStore implements PresenceStore {
  private readonly byTag = new Map<string, Map<string, Sighting>>();
  private readonly bySight = new Map<string, Sighting>();

  async touch(tagId: string, session: Session, nowMs: number): Promise<void> {
    const sighting = { tagId, session, seen: nowMs };
    const key = `${tagId} ${session.id}`;
    this.bySight.delete(key);
    this.bySight.set(key, sighting);
    let sessions = this.byTag.get(tagId);
    if (!sessions) this.byTag.set(tagId, (sessions = new Map()));
    sessions.set(session.id, sighting);
    this.forgetQuiet(nowMs);
  }

  /** Sessions held, of all tags: what this store costs in memory (for tests and monitoring). */
  held(): number {
    return this.bySight.size;
  }

  async active(tagId: string, nowMs: number): Promise<Session[]> {
    this.forgetQuiet(nowMs);
    // Filtered too: after the clock stepped back, a quiet session can sit behind a newer one.
    const recent = [...(this.byTag.get(tagId)?.values() ?? [])].filter((sighting) => sighting.seen >= nowMs - ACTIVE_WINDOW_MS);
    return recent.map((sighting) => sighting.session).sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  async close(): Promise<void> {
    this.byTag.clear();
    this.bySight.clear();
  }

  private forgetQuiet(nowMs: number): void {
    for (const [key, sighting] of this.bySight) {
      if (sighting.seen >= nowMs - ACTIVE_WINDOW_MS) return;
      this.bySight.delete(key);
      const sessions = this.byTag.get(sighting.tagId)!;
      sessions.delete(sighting.session.id);
      if (sessions.size === 0) this.byTag.delete(sighting.tagId);
    }
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
