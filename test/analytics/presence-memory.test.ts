import { describe, expect, it } from 'vitest';
import { ACTIVE_WINDOW_MS, MemoryPresenceStore } from '../../src/lib/presence.js';

/**
 * The in-process presence store is touched by every view of every tag, but read only when an
 * Enterprise key asks for a tag's real-time figures. It must not keep every view since the
 * process started for tags nobody asks about: a busy page would grow it without bound.
 */
describe('in-process presence holds about a minute of sessions per tag', () => {
  const session = (id: string, atMs: number) => ({ id, started_at: new Date(atMs).toISOString(), device: 'desktop', country: null });

  it('sessions gone quiet for a minute go as new ones arrive, without anyone reading them', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    // Ten minutes of a view every 100 ms on one tag: 6,000 sessions, of which 600 are recent.
    for (let i = 0; i < 6000; i++) await store.touch('tag_a', session(`view_${i}`, start + i * 100), start + i * 100);
    const now = start + 5999 * 100;
    expect(store.held()).toBeLessThanOrEqual(ACTIVE_WINDOW_MS / 100 + 1);
    expect((await store.active('tag_a', now)).length).toBe(ACTIVE_WINDOW_MS / 100 + 1);
  });

  it('tags that go quiet are forgotten as other tags are touched', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    for (let i = 0; i < 1000; i++) await store.touch(`tag_${i}`, session(`view_${i}`, start), start);
    expect(store.held()).toBe(1000);
    await store.touch('tag_other', session('view_later', start + ACTIVE_WINDOW_MS + 1), start + ACTIVE_WINDOW_MS + 1);
    expect(store.held()).toBe(1);
    expect(await store.active('tag_0', start + ACTIVE_WINDOW_MS + 1)).toEqual([]);
  });

  it('a heartbeat keeps its session: it moves behind the sessions seen since', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    await store.touch('tag_a', session('view_old', start), start);
    await store.touch('tag_a', session('view_new', start + 30_000), start + 30_000);
    // The first session's heartbeat at 50 s, then a view at 100 s: 50 s after that heartbeat.
    await store.touch('tag_a', session('view_old', start), start + 50_000);
    await store.touch('tag_a', session('view_last', start + 100_000), start + 100_000);
    // view_new (last seen at 30 s) went on that view, though view_old was touched before it.
    expect(store.held()).toBe(2);
    expect((await store.active('tag_a', start + 100_000)).map((s) => s.id)).toEqual(['view_old', 'view_last']);
  });
});
