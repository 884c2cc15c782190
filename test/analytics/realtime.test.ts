import { beforeAll, expect, it } from 'vitest';
import { createAccount, createKey, expectError } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { describeStores } from '../helpers/redis.js';
import {
  createTag,
  expectBeaconAccepted,
  get,
  getData,
  IP,
  useAnalyticsApp,
  UA,
  view,
  visit,
  visitorId,
  type CreatedTag,
} from './support.js';

/**
 * GET /v1/tags/{id}/analytics/realtime (Enterprise): the visitors seen in the last 60 s (each
 * once, by their latest session), refreshed by page views and beacons (heartbeats), and exact
 * view counts of the last hour and day. With presence in this process, and in Redis (REDIS_URL:
 * shared by every instance).
 */
describeStores('real-time analytics, presence', (env) => {
  const t = useAnalyticsApp(env);
  const ent = useAccount(t, 'enterprise');
  const pro = useAccount(t, 'pro');
  let tag: CreatedTag;
  let tokenD: string;
  const T0 = Date.parse('2026-05-01T12:00:00.000Z');
  const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

  function realtime(key = ent.key, id = tag.id) {
    return getData(t, key, `/v1/tags/${id}/analytics/realtime`);
  }

  beforeAll(async () => {
    tag = await createTag(t, ent.key, { title: 'Live' });
    await view(t, tag.short_id, { at: at(-25 * 3_600_000), visitor: visitorId('a') });
    await view(t, tag.short_id, { at: at(-2 * 3_600_000), visitor: visitorId('b') });
    await view(t, tag.short_id, { at: at(-50 * 60_000), visitor: visitorId('c') });
    tokenD = await view(t, tag.short_id, { at: at(-30_000), ua: UA.iphone, ip: IP.london, visitor: visitorId('d') });
    await view(t, tag.short_id, { at: at(0), scan: true, ua: UA.chromeWindows, ip: IP.mountainView, visitor: visitorId('e') });
    await visit(t, tag.short_id, { at: at(0), ua: UA.googlebot, ip: IP.london });
  });

  it('counts the sessions of the last 60 s and the views of the last hour and 24 hours', async () => {
    expect(await realtime()).toEqual({
      current_viewers: 2,
      views_last_hour: 3,
      views_last_24h: 4,
      active_sessions: [
        { started_at: at(-30_000), device: 'mobile', country: 'GB' },
        { started_at: at(0), device: 'desktop', country: 'US' },
      ],
    });
    expect(await realtime(ent.key, tag.short_id)).toEqual(await realtime());
  });

  it('a heartbeat keeps a session; one without drops out after 60 s', async () => {
    t.clock.freeze(new Date(at(20_000)));
    await expectBeaconAccepted(t, tokenD, 50);
    t.clock.advance(41_000); // T0 + 61 s: the scan at T0 was seen 61 s ago.
    expect(await realtime()).toEqual({
      current_viewers: 1,
      views_last_hour: 3,
      views_last_24h: 4,
      active_sessions: [{ started_at: at(-30_000), device: 'mobile', country: 'GB' }],
    });
    // Seen exactly 60 s ago still counts; a millisecond later it does not.
    t.clock.freeze(new Date(at(80_000)));
    expect((await realtime()).current_viewers).toBe(1);
    t.clock.freeze(new Date(at(80_001)));
    expect(await realtime()).toEqual({ current_viewers: 0, views_last_hour: 3, views_last_24h: 4, active_sessions: [] });
  });

  it('bots and forged beacons start no session; a new view does, and the counts move with the clock', async () => {
    t.clock.freeze(new Date(at(90_000)));
    await visit(t, tag.short_id, { ua: UA.curl });
    await expectBeaconAccepted(t, `${tokenD.split('.')[0]}.forged`, 5);
    expect((await realtime()).current_viewers).toBe(0);
    await view(t, tag.short_id, { ua: UA.ipad, visitor: visitorId('f') });
    expect(await realtime()).toEqual({
      current_viewers: 1,
      views_last_hour: 4,
      views_last_24h: 5,
      active_sessions: [{ started_at: at(90_000), device: 'tablet', country: null }],
    });
    // Eleven minutes on: the view at T0 - 50 min leaves the last hour; T0 - 2 h stays in the day.
    t.clock.freeze(new Date(at(11 * 60_000)));
    expect(await realtime()).toEqual({ current_viewers: 0, views_last_hour: 3, views_last_24h: 5, active_sessions: [] });
  });

  it('counts visitors, not page loads: five reloads are one viewer, listed by their latest view', async () => {
    const reloaded = await createTag(t, ent.key, { title: 'Reloaded' });
    const base = T0 + 3_600_000;
    const when = (offsetMs: number) => new Date(base + offsetMs).toISOString();
    // One person with a cookie reloads five times; one without a cookie twice (known by address
    // and agent); a third views once. Eight page loads, three viewers.
    for (let i = 0; i < 5; i++) await view(t, reloaded.short_id, { at: when(i * 2000), ua: UA.iphone, visitor: visitorId('reloader') });
    await view(t, reloaded.short_id, { at: when(1000), ua: UA.firefoxLinux, ip: IP.sydney });
    await view(t, reloaded.short_id, { at: when(3000), ua: UA.firefoxLinux, ip: IP.sydney });
    const lastToken = await view(t, reloaded.short_id, { at: when(5000), ua: UA.ipad, ip: IP.london, visitor: visitorId('once') });
    const live = await realtime(ent.key, reloaded.id);
    expect(live).toEqual({
      current_viewers: 3,
      views_last_hour: 8,
      views_last_24h: 8,
      active_sessions: [
        { started_at: when(3000), device: 'desktop', country: 'AU' },
        { started_at: when(5000), device: 'tablet', country: 'GB' },
        { started_at: when(8000), device: 'mobile', country: null },
      ],
    });
    // 61 s after the last reload only the beating page is left: one viewer.
    t.clock.freeze(new Date(when(30_000)));
    await expectBeaconAccepted(t, lastToken, 25);
    t.clock.freeze(new Date(when(69_000)));
    expect(await realtime(ent.key, reloaded.id)).toMatchObject({
      current_viewers: 1,
      active_sessions: [{ started_at: when(5000), device: 'tablet', country: 'GB' }],
    });
  });

  it('Enterprise only: a Pro key gets 403 forbidden on its own tag', async () => {
    const proTag = await createTag(t, pro.key);
    await view(t, proTag.short_id, { visitor: visitorId('p') });
    expectError(await get(t, pro.key, `/v1/tags/${proTag.id}/analytics/realtime`), 403, 'forbidden');
    // The rest of its analytics work.
    expect((await getData(t, pro.key, `/v1/tags/${proTag.id}/analytics`)).summary.total_views).toBe(1);
  });

  it("another account's tag, a key without analytics:read, a test key: refused", async () => {
    const other = await createAccount(t, 'enterprise');
    expectError(await get(t, other.key, `/v1/tags/${tag.id}/analytics/realtime`), 403, 'forbidden');
    const noAnalytics = await createKey(t, ent.email, { permissions: 'tags:read' });
    const refused = await get(t, noAnalytics.key, `/v1/tags/${tag.id}/analytics/realtime`);
    expectError(refused, 403, 'forbidden');
    expect(refused.body.error.message).toContain('analytics:read');
    const testKey = await createKey(t, ent.email, { test: true });
    expectError(await get(t, testKey.key, `/v1/tags/${tag.id}/analytics/realtime`), 404, 'not_found');
  });
});
