import { describe, expect, it } from 'vitest';
import { ACTIVE_WINDOW_MS, MemoryPresenceStore } from '../../src/lib/presence.js';

/**
 * The in-process presence store is touched by every view of every tag, but read only when an
 * Enterprise key asks for a tag's real-time figures. It must not keep every view since the
 * process started for tags nobody asks about: a busy page would grow it without bound.
 */
describe('in-process presence holds about a minute of sessions per tag', () => {
  // Each view its own visitor unless one is named.
  const session = (id: string, atMs: number, visitor = `visitor_${id}`) => ({
    id,
    started_at: new Date(atMs).toISOString(),
    device: 'desktop',
    country: null,
    visitor,
  });

  it('sessions gone quiet for a minute go as new ones arrive, without anyone reading them', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    // Ten minutes of a view every 100 ms on one tag: 6,000 sessions, of which 600 are recent.
    for (let i = 0; i < 6000; i++) await store.started('tag_a', session(`view_${i}`, start + i * 100), start + i * 100);
    const now = start + 5999 * 100;
    expect(store.held()).toBeLessThanOrEqual(ACTIVE_WINDOW_MS / 100 + 1);
    expect((await store.active('tag_a', now)).length).toBe(ACTIVE_WINDOW_MS / 100 + 1);
  });

  it('keeps every view of the window, oldest first, when a burst comes after the oldest went', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    // A view a second for 100 s: the oldest 40 have left the window, the ring has wrapped.
    for (let i = 0; i < 100; i++) await store.started('tag_a', session(`view_${i}`, start + i * 1000), start + i * 1000);
    // Then 300 at once: the ring must grow with its start in the middle.
    const at = start + 100_000;
    for (let i = 0; i < 300; i++) await store.started('tag_a', session(`burst_${i}`, at), at);
    const active = await store.active('tag_a', at);
    expect(active).toHaveLength(60 + 300);
    expect(active[0]!.started_at).toBe(new Date(start + 40_000).toISOString());
    expect(active.map((s) => s.started_at)).toEqual([...active.map((s) => s.started_at)].sort());
    expect(store.held()).toBe(360);
  });

  it('tags that go quiet are forgotten as other tags are touched', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    for (let i = 0; i < 1000; i++) await store.started(`tag_${i}`, session(`view_${i}`, start), start);
    expect(store.held()).toBe(1000);
    await store.started('tag_other', session('view_later', start + ACTIVE_WINDOW_MS + 1), start + ACTIVE_WINDOW_MS + 1);
    expect(store.held()).toBe(1);
    expect(await store.active('tag_0', start + ACTIVE_WINDOW_MS + 1)).toEqual([]);
  });

  it('a heartbeat keeps its session after its view has left the window, counted once', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    await store.started('tag_a', session('view_old', start), start);
    await store.started('tag_a', session('view_new', start + 30_000), start + 30_000);
    // While its view is in the window, a heartbeat adds no second session.
    await store.touch('tag_a', session('view_new', start + 30_000), start + 35_000);
    expect((await store.active('tag_a', start + 35_000)).length).toBe(2);
    // The first session's heartbeat at 50 s, then a view at 100 s: 50 s after that heartbeat.
    await store.touch('tag_a', session('view_old', start), start + 50_000);
    await store.started('tag_a', session('view_last', start + 100_000), start + 100_000);
    // view_new (started at 30 s, its heartbeat at 35 s) went; view_old stays for its heartbeat.
    expect(store.held()).toBe(2);
    expect((await store.active('tag_a', start + 100_000)).map((s) => s.started_at)).toEqual([
      new Date(start).toISOString(),
      new Date(start + 100_000).toISOString(),
    ]);
  });

  it('a visitor is one viewer however many views and heartbeats: their latest session', async () => {
    const store = new MemoryPresenceStore();
    const start = Date.parse('2026-05-01T12:00:00.000Z');
    // One person reloads five times, 5 s apart; another views once; the first page beats at 70 s.
    for (let i = 0; i < 5; i++) await store.started('tag_a', session(`reload_${i}`, start + i * 5000, 'ann'), start + i * 5000);
    await store.started('tag_a', session('view_bob', start + 10_000, 'bob'), start + 10_000);
    expect(await store.active('tag_a', start + 20_000)).toEqual([
      { started_at: new Date(start + 10_000).toISOString(), device: 'desktop', country: null },
      { started_at: new Date(start + 20_000).toISOString(), device: 'desktop', country: null },
    ]);
    // At 75 s only the heartbeat of ann's first page and her last view (20 s) are in the window:
    // still one viewer, by the session started last.
    await store.touch('tag_a', session('reload_0', start, 'ann'), start + 70_000);
    expect(await store.active('tag_a', start + 75_000)).toEqual([
      { started_at: new Date(start + 20_000).toISOString(), device: 'desktop', country: null },
    ]);
    // At 100 s ann's last view has left; her first page's heartbeat (70 s) keeps her.
    expect(await store.active('tag_a', start + 100_000)).toEqual([
      { started_at: new Date(start).toISOString(), device: 'desktop', country: null },
    ]);
  });
});
