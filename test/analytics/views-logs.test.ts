import { beforeAll, describe, expect, it } from 'vitest';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { expectError, request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import {
  createTag,
  expectBeaconAccepted,
  get,
  getData,
  inboxRecords,
  IP,
  useAnalyticsApp,
  UA,
  view,
  visit,
  visitorId,
  type CreatedTag,
} from './support.js';

/** GET /v1/tags/{id}/analytics/views and /analytics/logs: records, order, pagination, levels, masking. */
describe('view records and access logs', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  let tag: CreatedTag;
  /** View ids in the order they happened: a (logging off), b, c, d (logging on). */
  let ids: string[];
  const PERIOD = { start_date: '2026-04-01', end_date: '2026-04-04' };
  const WHOLE_IPS = [IP.london, IP.mountainView, IP.local, IP.ipv6Montreal, '2001:4860:4860:0:0:0:0:8888'];

  function setLogging(on: boolean) {
    return request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { access_logging: on } }).then((r) =>
      expect(r.status, r.text).toBe(200),
    );
  }

  beforeAll(async () => {
    tag = await createTag(t, alice.key, { title: 'Logged' });
    await view(t, tag.short_id, { at: '2026-04-01T10:00:00.000Z', ua: UA.iphone, ip: IP.london, visitor: visitorId('a') });
    await setLogging(true);
    const b = await view(t, tag.short_id, {
      at: '2026-04-01T11:00:00.000Z',
      ua: UA.chromeWindows,
      ip: IP.mountainView,
      visitor: visitorId('b'),
      referer: 'https://news.example.com/a',
    });
    await view(t, tag.short_id, {
      at: '2026-04-02T09:30:00.000Z',
      scan: true,
      ua: UA.ipad,
      ip: IP.ipv6Montreal,
      visitor: visitorId('c'),
      query: 'utm_source=flyer&utm_medium=print&utm_campaign=%20Spring%20fair%20',
    });
    await view(t, tag.short_id, { at: '2026-04-03T08:00:00.000Z', ua: UA.firefoxLinux, visitor: visitorId('d') });
    await visit(t, tag.short_id, { at: '2026-04-03T08:30:00.000Z', ua: UA.googlebot, ip: IP.london });
    await expectBeaconAccepted(t, b, 42);
    t.clock.freeze(new Date('2026-04-03T18:00:00.000Z'));
    await rollUpViews(t.database.db);
    ids = (await t.database.db.selectFrom('views').select('id').where('tag_id', '=', tag.id).orderBy('occurred_at').execute()).map(
      (r) => r.id,
    );
    expect(ids).toHaveLength(4);
  });

  const records = () => {
    const [a, b, c, d] = ids;
    return {
      a: {
        id: a,
        timestamp: '2026-04-01T10:00:00.000Z',
        source: 'direct',
        device: 'mobile',
        browser: 'Mobile Safari',
        os: 'iOS',
        country: 'GB',
        region: 'England',
        duration_seconds: null,
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
      },
      b: {
        id: b,
        timestamp: '2026-04-01T11:00:00.000Z',
        source: 'referral',
        device: 'desktop',
        browser: 'Chrome',
        os: 'Windows',
        country: 'US',
        region: 'California',
        duration_seconds: 42,
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
      },
      c: {
        id: c,
        timestamp: '2026-04-02T09:30:00.000Z',
        source: 'qr_scan',
        device: 'tablet',
        browser: 'Mobile Safari',
        os: 'iOS',
        country: 'CA',
        region: 'Quebec',
        duration_seconds: null,
        utm_source: 'flyer',
        utm_medium: 'print',
        utm_campaign: 'Spring fair',
      },
      d: {
        id: d,
        timestamp: '2026-04-03T08:00:00.000Z',
        source: 'direct',
        device: 'desktop',
        browser: 'Firefox',
        os: 'Linux',
        country: null,
        region: null,
        duration_seconds: null,
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
      },
    };
  };

  it('views: every counted view, newest first, with its fields', async () => {
    const { a, b, c, d } = records();
    const response = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, PERIOD);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { views: [d, c, b, a] },
      pagination: { total: 4, limit: 20, offset: 0, has_more: false },
    });
    for (const ip of WHOLE_IPS) expect(response.text).not.toContain(ip);
    // Default period (the last 30 days up to today) holds them all too.
    expect((await getData(t, alice.key, `/v1/tags/${tag.short_id}/analytics/views`)).views).toEqual([d, c, b, a]);
  });

  it('views: pagination and the period filter', async () => {
    const { a, b, c } = records();
    const page = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, { ...PERIOD, limit: 2, offset: 1 });
    expect(page.body).toEqual({ success: true, data: { views: [c, b] }, pagination: { total: 4, limit: 2, offset: 1, has_more: true } });
    const last = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, { ...PERIOD, limit: 2, offset: 3 });
    expect(last.body).toEqual({ success: true, data: { views: [a] }, pagination: { total: 4, limit: 2, offset: 3, has_more: false } });
    const oneDay = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, { start_date: '2026-04-02', end_date: '2026-04-03' });
    expect(oneDay.body).toEqual({ success: true, data: { views: [c] }, pagination: { total: 1, limit: 20, offset: 0, has_more: false } });
    const none = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, { start_date: '2026-03-01', end_date: '2026-04-01' });
    expect(none.body).toEqual({ success: true, data: { views: [] }, pagination: { total: 0, limit: 20, offset: 0, has_more: false } });
    expectError(await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, { limit: 101 }), 400, 'validation_error', 'limit');
    expectError(await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, { offset: -1 }), 400, 'validation_error', 'offset');
    expectError(
      await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, { offset: '99999999999999999999' }),
      400,
      'validation_error',
      'offset',
    );
  });

  it('logs (detailed, the default): every field, the address masked, only views made while logging was on', async () => {
    const [, b, c, d] = ids;
    const response = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, PERIOD);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        logs: [
          {
            id: d,
            timestamp: '2026-04-03T08:00:00.000Z',
            event: 'view',
            source: 'direct',
            ip_address: '127.0.0.xxx',
            user_agent: UA.firefoxLinux,
            device: { type: 'desktop', os: 'Linux', browser: 'Firefox' },
            location: { country: null, region: null, city: null },
            referrer: null,
            duration_seconds: null,
            utm_source: null,
            utm_medium: null,
            utm_campaign: null,
          },
          {
            id: c,
            timestamp: '2026-04-02T09:30:00.000Z',
            event: 'view',
            source: 'qr_scan',
            ip_address: '2001:4860:4860:xxxx:xxxx:xxxx:xxxx:xxxx',
            user_agent: UA.ipad,
            device: { type: 'tablet', os: 'iOS', browser: 'Mobile Safari' },
            location: { country: 'CA', region: 'Quebec', city: 'Montreal' },
            referrer: null,
            duration_seconds: null,
            utm_source: 'flyer',
            utm_medium: 'print',
            utm_campaign: 'Spring fair',
          },
          {
            id: b,
            timestamp: '2026-04-01T11:00:00.000Z',
            event: 'view',
            source: 'referral',
            ip_address: '8.8.8.xxx',
            user_agent: UA.chromeWindows,
            device: { type: 'desktop', os: 'Windows', browser: 'Chrome' },
            location: { country: 'US', region: 'California', city: 'Mountain View' },
            referrer: 'https://news.example.com/a',
            duration_seconds: 42,
            utm_source: null,
            utm_medium: null,
            utm_campaign: null,
          },
        ],
      },
      pagination: { total: 3, limit: 20, offset: 0, has_more: false },
    });
    for (const ip of WHOLE_IPS) expect(response.text).not.toContain(ip);
    const detailed = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, { ...PERIOD, level: 'detailed' });
    expect(detailed.body).toEqual(response.body);

    // The view made while logging was off kept no user agent.
    await rollUpViews(t.database.db);
    const stored = await t.database.db
      .selectFrom('views')
      .select(['id', 'user_agent', 'logged', 'ip_masked'])
      .where('tag_id', '=', tag.id)
      .orderBy('occurred_at')
      .execute();
    expect(stored).toEqual([
      { id: ids[0], user_agent: null, logged: 0, ip_masked: '81.2.69.xxx' },
      { id: b, user_agent: UA.chromeWindows, logged: 1, ip_masked: '8.8.8.xxx' },
      { id: c, user_agent: UA.ipad, logged: 1, ip_masked: '2001:4860:4860:xxxx:xxxx:xxxx:xxxx:xxxx' },
      { id: d, user_agent: UA.firefoxLinux, logged: 1, ip_masked: '127.0.0.xxx' },
    ]);
  });

  it('logs level=basic: id, timestamp, event, source, device.type, location.country, duration_seconds', async () => {
    const [, b, c, d] = ids;
    const response = await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, { ...PERIOD, level: 'basic', limit: 2 });
    expect(response.body).toEqual({
      success: true,
      data: {
        logs: [
          {
            id: d,
            timestamp: '2026-04-03T08:00:00.000Z',
            event: 'view',
            source: 'direct',
            device: { type: 'desktop' },
            location: { country: null },
            duration_seconds: null,
          },
          {
            id: c,
            timestamp: '2026-04-02T09:30:00.000Z',
            event: 'view',
            source: 'qr_scan',
            device: { type: 'tablet' },
            location: { country: 'CA' },
            duration_seconds: null,
          },
        ],
      },
      pagination: { total: 3, limit: 2, offset: 0, has_more: true },
    });
    const rest = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, { ...PERIOD, level: 'basic', offset: 2 });
    expect(rest.logs).toEqual([
      {
        id: b,
        timestamp: '2026-04-01T11:00:00.000Z',
        event: 'view',
        source: 'referral',
        device: { type: 'desktop' },
        location: { country: 'US' },
        duration_seconds: 42,
      },
    ]);
    expectError(await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, { level: 'verbose' }), 400, 'validation_error', 'level');
    expectError(
      await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, { start_date: 'yesterday' }),
      400,
      'validation_error',
      'start_date',
    );
    expectError(
      await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, { start_date: '2026-04-02', end_date: '2026-04-02' }),
      400,
      'invalid_date_range',
    );
  });

  it('logs with access logging off: 403 analytics_not_enabled; views made meanwhile keep no user agent and never enter the log', async () => {
    const other = await createTag(t, alice.key, { title: 'Never logged' });
    expectError(await get(t, alice.key, `/v1/tags/${other.id}/analytics/logs`), 403, 'analytics_not_enabled');

    await setLogging(false);
    expectError(await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, PERIOD), 403, 'analytics_not_enabled');
    await view(t, tag.short_id, { at: '2026-04-03T12:00:00.000Z', ua: UA.safariMac, ip: IP.london, visitor: visitorId('e') });
    t.clock.freeze(new Date('2026-04-03T18:00:00.000Z'));
    await rollUpViews(t.database.db);
    const e = await t.database.db
      .selectFrom('views')
      .selectAll()
      .where('tag_id', '=', tag.id)
      .where('occurred_at', '=', '2026-04-03T12:00:00.000Z')
      .executeTakeFirstOrThrow();
    expect({ user_agent: e.user_agent, logged: e.logged, ip_masked: e.ip_masked }).toEqual({
      user_agent: null,
      logged: 0,
      ip_masked: '81.2.69.xxx',
    });
    // Still counted as a view.
    const views = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, PERIOD);
    expect(views.views.map((v: { id: string }) => v.id)).toEqual([e.id, ids[3], ids[2], ids[1], ids[0]]);

    await setLogging(true);
    const logs = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, PERIOD);
    expect(logs.logs.map((l: { id: string }) => l.id)).toEqual([ids[3], ids[2], ids[1]]);
  });

  it('no whole address is stored or answered anywhere', async () => {
    // A view still in the inbox, and then stored.
    await view(t, tag.short_id, { at: '2026-04-03T11:00:00.000Z', ua: UA.firefoxLinux, ip: IP.london });
    const inbox = await inboxRecords(t.database.db);
    expect(inbox).toHaveLength(1);
    await rollUpViews(t.database.db);
    const rows = await t.database.db.selectFrom('views').selectAll().execute();
    const events = await t.database.db.selectFrom('events').selectAll().execute();
    const texts = [
      JSON.stringify(inbox),
      JSON.stringify(rows),
      JSON.stringify(events),
      (await get(t, alice.key, `/v1/tags/${tag.id}/analytics`, PERIOD)).text,
      (await get(t, alice.key, `/v1/tags/${tag.id}/analytics/views`, PERIOD)).text,
      (await get(t, alice.key, `/v1/tags/${tag.id}/analytics/logs`, PERIOD)).text,
      (await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: 'summary,views,logs' })).text,
    ];
    for (const text of texts) for (const ip of WHOLE_IPS) expect(text).not.toContain(ip);
    expect(rows.map((r) => r.ip_masked).every((m) => m === null || /xxx/.test(m))).toBe(true);
  });
});
