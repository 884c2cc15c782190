import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount, expectError, request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { upload } from '../files/helpers.js';
import { createTag, daysBetween, get, getData, IP, useAnalyticsApp, UA, view, visit, visitorId, type CreatedTag } from './support.js';

/** GET /v1/analytics/overview and GET /v1/analytics/export (CSV and JSON). */
describe('account overview and export', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  const carol = useAccount(t, 'pro');
  let P: CreatedTag;
  let Q: CreatedTag;
  let R: CreatedTag;
  let S: CreatedTag;
  let O: CreatedTag;
  const PERIOD = { start_date: '2026-04-01', end_date: '2026-04-04' };
  const NOW = '2026-04-03T18:00:00.000Z';
  const HEADER = 'date,tag_id,tag_title,views,unique_views,qr_scans,direct_visits';

  beforeAll(async () => {
    // S is older than the period; P, Q, R are created in it.
    t.clock.freeze(new Date('2026-02-01T09:00:00.000Z'));
    S = await createTag(t, alice.key, { title: 'Seasonal' });
    t.clock.freeze(new Date('2026-04-01T09:00:00.000Z'));
    P = await createTag(t, alice.key, { title: 'Menu, "special"' });
    Q = await createTag(t, alice.key, { title: 'Quiz' });
    R = await createTag(t, alice.key, { title: 'Rest' });
    O = await createTag(t, carol.key, { title: "Carol's" });
    const file = await upload(t, alice.key, P.id, 'notes.txt', Buffer.from('hello analytics\n'));
    expect(file.status, file.text).toBe(201);

    const [V1, V2, V3, V4, V5] = ['o1', 'o2', 'o3', 'o4', 'o5'].map(visitorId);
    await view(t, P.short_id, { at: '2026-04-01T10:00:00.000Z', visitor: V1, ip: IP.london });
    await view(t, P.short_id, { at: '2026-04-01T11:00:00.000Z', scan: true, visitor: V1, ip: IP.london });
    await view(t, P.short_id, { at: '2026-04-01T12:00:00.000Z', scan: true, visitor: V2, ua: UA.chromeWindows, ip: IP.mountainView });
    await view(t, P.short_id, { at: '2026-04-02T10:00:00.000Z', visitor: V1, referer: 'https://blog.example.net/post' });
    await view(t, Q.short_id, { at: '2026-04-02T10:00:01.000Z', visitor: V1 });
    await view(t, S.short_id, { at: '2026-04-02T13:00:00.000Z', visitor: V4 });
    await view(t, S.short_id, { at: '2026-04-02T14:00:00.000Z', visitor: V4 });
    await view(t, S.short_id, { at: '2026-04-02T15:00:00.000Z', visitor: V5 });
    const put = await request(t, 'PUT', `/v1/tags/${Q.id}`, { key: alice.key, body: { access_logging: true } });
    expect(put.status, put.text).toBe(200);
    await view(t, Q.short_id, { at: '2026-04-03T10:00:00.000Z', scan: true, visitor: V3, ua: UA.firefoxLinux, ip: IP.sydney });
    // Not alice's: carol's view; not counted: bots.
    await view(t, O.short_id, { at: '2026-04-01T10:00:00.000Z', visitor: V1 });
    await visit(t, P.short_id, { at: '2026-04-02T16:00:00.000Z', ua: UA.googlebot });
    await visit(t, Q.short_id, { at: '2026-04-02T16:00:00.000Z', ua: UA.curl, scan: true });
    t.clock.freeze(new Date(NOW));
  });

  /** The per tag and day rows of the period, ordered by date then tag id. */
  function expectedRows() {
    const rows = [
      { date: '2026-04-01', tag: P, views: 3, unique_views: 2, qr_scans: 2, direct_visits: 1 },
      { date: '2026-04-02', tag: P, views: 1, unique_views: 1, qr_scans: 0, direct_visits: 0 },
      { date: '2026-04-02', tag: Q, views: 1, unique_views: 1, qr_scans: 0, direct_visits: 1 },
      { date: '2026-04-02', tag: S, views: 3, unique_views: 2, qr_scans: 0, direct_visits: 3 },
      { date: '2026-04-03', tag: Q, views: 1, unique_views: 1, qr_scans: 1, direct_visits: 0 },
    ];
    return rows
      .sort((a, b) => a.date.localeCompare(b.date) || (a.tag.id < b.tag.id ? -1 : 1))
      .map(({ tag, ...row }) => ({
        date: row.date,
        tag_id: tag.id,
        tag_title: tag.title,
        views: row.views,
        unique_views: row.unique_views,
        qr_scans: row.qr_scans,
        direct_visits: row.direct_visits,
      }));
  }

  function csvLine(row: ReturnType<typeof expectedRows>[number]): string {
    const title = row.tag_title === 'Menu, "special"' ? '"Menu, ""special"""' : row.tag_title;
    return [row.date, row.tag_id, title, row.views, row.unique_views, row.qr_scans, row.direct_visits].join(',');
  }

  describe('overview', () => {
    it('totals, top tags and a zero-filled day series of the period', async () => {
      expect(await getData(t, alice.key, '/v1/analytics/overview', PERIOD)).toEqual({
        period: { start: '2026-04-01', end: '2026-04-04' },
        timezone: 'UTC',
        // unique_views: distinct visitors of all the tags over the period: V1 (P and Q, two
        // days), V2, V3, V4, V5; carol's view by V1 is hers.
        totals: { views: 9, unique_views: 5, qr_scans: 3, tags_created: 3, files_uploaded: 1, bot_views: 2 },
        top_tags: [
          { id: P.id, title: 'Menu, "special"', views: 4 },
          { id: S.id, title: 'Seasonal', views: 3 },
          { id: Q.id, title: 'Quiz', views: 2 },
        ],
        by_day: [
          { date: '2026-04-01', views: 3, scans: 2 },
          { date: '2026-04-02', views: 5, scans: 0 },
          { date: '2026-04-03', views: 1, scans: 1 },
        ],
        by_referrer: { direct: 8, 'blog.example.net': 1 },
        by_utm_source: { unknown: 9 },
      });
    });

    it('default period: the last 30 days; a sub-period counts only its days', async () => {
      const data = await getData(t, alice.key, '/v1/analytics/overview');
      expect(data.period).toEqual({ start: '2026-03-05', end: '2026-04-04' });
      expect(data.totals).toEqual({ views: 9, unique_views: 5, qr_scans: 3, tags_created: 3, files_uploaded: 1, bot_views: 2 });
      const days = daysBetween('2026-03-05', '2026-04-04');
      const nonZero: Record<string, { views: number; scans: number }> = {
        '2026-04-01': { views: 3, scans: 2 },
        '2026-04-02': { views: 5, scans: 0 },
        '2026-04-03': { views: 1, scans: 1 },
      };
      expect(data.by_day).toEqual(days.map((date) => ({ date, ...(nonZero[date] ?? { views: 0, scans: 0 }) })));
      expect(data.by_day).toHaveLength(30);

      const second = await getData(t, alice.key, '/v1/analytics/overview', { start_date: '2026-04-02', end_date: '2026-04-03' });
      // 04-02: V1 on P and on Q, V4 twice and V5 on S.
      expect(second.totals).toEqual({ views: 5, unique_views: 3, qr_scans: 0, tags_created: 0, files_uploaded: 0, bot_views: 2 });
      expect(second.top_tags[0]).toEqual({ id: S.id, title: 'Seasonal', views: 3 });
      expect(second.top_tags.slice(1).sort((a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1))).toEqual([
        { id: P.id, title: 'Menu, "special"', views: 1 },
        { id: Q.id, title: 'Quiz', views: 1 },
      ]);
      expect(second.by_day).toEqual([{ date: '2026-04-02', views: 5, scans: 0 }]);
    });

    it("another account's overview holds only its own views", async () => {
      expect(await getData(t, carol.key, '/v1/analytics/overview', PERIOD)).toEqual({
        period: { start: '2026-04-01', end: '2026-04-04' },
        timezone: 'UTC',
        totals: { views: 1, unique_views: 1, qr_scans: 0, tags_created: 1, files_uploaded: 0, bot_views: 0 },
        top_tags: [{ id: O.id, title: "Carol's", views: 1 }],
        by_day: [
          { date: '2026-04-01', views: 1, scans: 0 },
          { date: '2026-04-02', views: 0, scans: 0 },
          { date: '2026-04-03', views: 0, scans: 0 },
        ],
        by_referrer: { direct: 1 },
        by_utm_source: { unknown: 1 },
      });
    });
  });

  describe('export', () => {
    it('CSV: a title a spreadsheet would run as a formula starts with an apostrophe; JSON keeps every title as it is', async () => {
      const dave = await createAccount(t, 'pro');
      const titles = ['=HYPERLINK("https://evil.example","x")', '+1', '-2+3', '@SUM(A1)', 'Plain = text'];
      const tags: CreatedTag[] = [];
      for (const title of titles) tags.push(await createTag(t, dave.key, { title }));
      for (const [i, tag] of tags.entries())
        await view(t, tag.short_id, { at: '2026-04-03T10:00:00.000Z', visitor: visitorId(`formula${i}`) });
      t.clock.freeze(new Date(NOW));
      const line = (tag: CreatedTag, field: string) => `2026-04-03,${tag.id},${field},1,1,0,1`;
      const csv = await get(t, dave.key, '/v1/analytics/export', PERIOD);
      expect(csv.status, csv.text).toBe(200);
      expect(csv.text.split('\n').slice(1, -1).sort()).toEqual(
        [
          line(tags[0]!, `"'=HYPERLINK(""https://evil.example"",""x"")"`),
          line(tags[1]!, "'+1"),
          line(tags[2]!, "'-2+3"),
          line(tags[3]!, "'@SUM(A1)"),
          line(tags[4]!, 'Plain = text'),
        ].sort(),
      );
      const json = await getData(t, dave.key, '/v1/analytics/export', { ...PERIOD, format: 'json' });
      expect((json.rows as { tag_title: string }[]).map((row) => row.tag_title).sort()).toEqual([...titles].sort());
    });

    it('CSV (the default): the exact header, one row per tag per day with views, streamed as an attachment', async () => {
      const response = await get(t, alice.key, '/v1/analytics/export', PERIOD);
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="tagsvc-analytics-2026-04-01-to-2026-04-04.csv"');
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      expect(response.headers.get('content-length')).toBeNull();
      expect(response.text).toBe([HEADER, ...expectedRows().map(csvLine)].join('\n') + '\n');
      expect(response.text).toContain(`2026-04-01,${P.id},"Menu, ""special""",3,2,2,1\n`);
      expect((await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'csv' })).text).toBe(response.text);
      // include shapes JSON only.
      expect((await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, include: 'views,logs' })).text).toBe(response.text);
    });

    it('CSV of a period without views is the header alone; another account exports only its own', async () => {
      expect((await get(t, alice.key, '/v1/analytics/export', { start_date: '2026-03-01', end_date: '2026-04-01' })).text).toBe(
        `${HEADER}\n`,
      );
      expect((await get(t, carol.key, '/v1/analytics/export', PERIOD)).text).toBe(`${HEADER}\n2026-04-01,${O.id},Carol's,1,1,0,1\n`);
    });

    it('tag_ids narrows the export; a tag of another account is 403, an unknown one 404', async () => {
      const onlyQ = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, tag_ids: Q.id });
      expect(onlyQ.text).toBe(
        [
          HEADER,
          ...expectedRows()
            .filter((r) => r.tag_id === Q.id)
            .map(csvLine),
        ].join('\n') + '\n',
      );
      const pq = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, tag_ids: `${Q.short_id}, ${P.id}` });
      expect(pq.text).toBe(
        [
          HEADER,
          ...expectedRows()
            .filter((r) => r.tag_id !== S.id)
            .map(csvLine),
        ].join('\n') + '\n',
      );
      const noViews = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, tag_ids: R.id });
      expect(noViews.text).toBe(`${HEADER}\n`);

      expectError(await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, tag_ids: O.id }), 403, 'forbidden');
      expectError(await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, tag_ids: `${P.id},${O.id}` }), 403, 'forbidden');
      expectError(
        await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, tag_ids: 'tag_01jzzzzzzzzzzzzzzzzzzzzzzz' }),
        404,
        'not_found',
      );
      expectError(await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', tag_ids: O.short_id }), 403, 'forbidden');
    });

    it('bad parameters: include, format', async () => {
      expectError(await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, include: 'bogus' }), 400, 'validation_error', 'include');
      expectError(
        await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: 'views,bogus' }),
        400,
        'validation_error',
        'include',
      );
      expectError(await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'xml' }), 400, 'validation_error', 'format');
      // An empty include is the default, as if absent; one that names nothing is refused.
      expect((await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: '' })).body.data.rows).toEqual(
        expectedRows(),
      );
      expectError(
        await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: ',' }),
        400,
        'validation_error',
        'include',
      );
    });

    it('JSON: export_date, period and rows; views and logs only when included', async () => {
      const response = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json' });
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="tagsvc-analytics-2026-04-01-to-2026-04-04.json"');
      expect(response.body).toEqual({
        success: true,
        data: { export_date: NOW, period: { start: '2026-04-01', end: '2026-04-04' }, timezone: 'UTC', rows: expectedRows() },
      });
      const summary = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: 'summary' });
      expect(summary.body).toEqual(response.body);
    });

    it('JSON with include=summary,views,logs: every view of the period, and the access log of the logged ones', async () => {
      const rows = await t.database.db
        .selectFrom('views')
        .selectAll()
        .where('owner_id', '=', alice.userId)
        .orderBy('occurred_at')
        .orderBy('id')
        .execute();
      expect(rows).toHaveLength(9);
      const response = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: 'summary,views,logs' });
      expect(response.status, response.text).toBe(200);
      const data = response.body.data;
      expect(Object.keys(data)).toEqual(['export_date', 'period', 'timezone', 'rows', 'views', 'logs']);
      expect(data.rows).toEqual(expectedRows());
      expect(data.views).toEqual(
        rows.map((r) => ({
          id: r.id,
          tag_id: r.tag_id,
          timestamp: r.occurred_at,
          source: r.source,
          device: r.device,
          browser: r.browser,
          os: r.os,
          country: r.country,
          region: r.region,
          duration_seconds: r.duration_seconds,
          utm_source: null,
          utm_medium: null,
          utm_campaign: null,
        })),
      );
      expect(data.views.map((v: { source: string }) => v.source)).toEqual([
        'direct',
        'qr_scan',
        'qr_scan',
        'referral',
        'direct',
        'direct',
        'direct',
        'direct',
        'qr_scan',
      ]);
      expect(data.views[2]).toMatchObject({
        tag_id: P.id,
        timestamp: '2026-04-01T12:00:00.000Z',
        device: 'desktop',
        browser: 'Chrome',
        os: 'Windows',
        country: 'US',
        region: 'California',
      });
      const logged = rows.at(-1)!;
      expect(data.logs).toEqual([
        {
          tag_id: Q.id,
          id: logged.id,
          timestamp: '2026-04-03T10:00:00.000Z',
          event: 'view',
          source: 'qr_scan',
          ip_address: '1.1.1.xxx',
          user_agent: UA.firefoxLinux,
          device: { type: 'desktop', os: 'Linux', browser: 'Firefox' },
          location: { country: 'AU', region: 'New South Wales', city: 'Sydney' },
          referrer: null,
          duration_seconds: null,
          utm_source: null,
          utm_medium: null,
          utm_campaign: null,
        },
      ]);

      const viewsOnly = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: 'views' });
      expect(Object.keys(viewsOnly.body.data)).toEqual(['export_date', 'period', 'timezone', 'rows', 'views']);
      expect(viewsOnly.body.data.rows).toEqual([]);
      expect(viewsOnly.body.data.views).toEqual(data.views);

      const qOnly = await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: 'logs,views', tag_ids: Q.id });
      expect(qOnly.body.data.views.map((v: { id: string }) => v.id)).toEqual(rows.filter((r) => r.tag_id === Q.id).map((r) => r.id));
      expect(qOnly.body.data.logs).toEqual(data.logs);
    });

    it('logs follow access logging as /logs does: only tags logging now show theirs, and naming one that does not is 403', async () => {
      const setLogging = async (on: boolean) => {
        const put = await request(t, 'PUT', `/v1/tags/${Q.id}`, { key: alice.key, body: { access_logging: on } });
        expect(put.status, put.text).toBe(200);
      };
      const exportOf = (query: Record<string, string>) =>
        get(t, alice.key, '/v1/analytics/export', { ...PERIOD, format: 'json', ...query });
      const logged = (await exportOf({ include: 'logs' })).body.data.logs;
      expect(logged.map((l: { tag_id: string }) => l.tag_id)).toEqual([Q.id]);

      await setLogging(false);
      try {
        expectError(await get(t, alice.key, `/v1/tags/${Q.id}/analytics/logs`, PERIOD), 403, 'analytics_not_enabled');
        expect((await exportOf({ include: 'summary,logs' })).body.data).toMatchObject({ rows: expectedRows(), logs: [] });
        const named = await exportOf({ include: 'views,logs', tag_ids: Q.short_id });
        expectError(named, 403, 'analytics_not_enabled');
        expect(named.body.error.message).toContain(Q.id);
        // Without logs, or as CSV (which include does not shape), the tag exports as before.
        expect((await exportOf({ include: 'views', tag_ids: Q.id })).status).toBe(200);
        expect((await get(t, alice.key, '/v1/analytics/export', { ...PERIOD, include: 'logs', tag_ids: Q.id })).status).toBe(200);
      } finally {
        await setLogging(true);
      }
      // Turned on again, the records logged before show again.
      expect((await exportOf({ include: 'logs', tag_ids: Q.id })).body.data.logs).toEqual(logged);
    });
  });
});
