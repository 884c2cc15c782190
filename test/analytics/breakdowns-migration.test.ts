import { describe, expect, it } from 'vitest';
import { migratorOf } from '../../src/db/database.js';
import { appendToInbox } from '../../src/features/analytics/ingestion.repository.js';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { newId } from '../../src/lib/ids.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, getData, IP, useAnalyticsApp, UA, view, visitorId } from './support.js';

/**
 * Migration 0019 (breakdowns): the views stored before it gain their referrer, operating system
 * and city breakdowns (their UTM parameters were never kept: unknown), per tag and per scope;
 * and a record the inbox held from before, without the UTM fields, is ingested with none.
 */
describe('migration 0019: breakdowns', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');

  it('works out the new breakdowns of the views stored before it, and ingests older records', async () => {
    t.clock.freeze(new Date('2026-05-01T08:00:00.000Z'));
    const tag = await createTag(t, alice.key, { title: 'Before breakdowns' });
    await view(t, tag.short_id, {
      at: '2026-05-01T09:00:00.000Z',
      ua: UA.chromeWindows,
      ip: IP.london,
      visitor: visitorId('m1'),
      referer: 'https://www.search.example/results',
    });
    await view(t, tag.short_id, { at: '2026-05-01T09:05:00.000Z', ua: UA.iphone, ip: IP.sydney, visitor: visitorId('m2') });
    await rollUpViews(t.database.db);

    const migrator = migratorOf(t.database);
    expect((await migrator.migrateTo('0018_link_clicks')).error).toBeUndefined();
    // A record as the page wrote it before 0019: 16 fields, no UTM parameters.
    const old = [newId('view'), tag.id, '2026-05-01T09:10:00.000Z', 'direct', visitorId('m3'), 'desktop', 'Firefox', 'Linux'];
    await appendToInbox(t.database.db, JSON.stringify([[...old, null, null, null, null, null, null, 0, null]]), 1);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    const period = { start_date: '2026-05-01', end_date: '2026-05-02' };
    const report = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics`, period);
    expect(report.summary.total_views).toBe(3);
    expect(report.by_referrer).toEqual({ direct: 2, 'search.example': 1 });
    expect(report.by_os).toEqual({ Windows: 1, iOS: 1, Linux: 1 });
    expect(report.by_city).toEqual([
      { city: 'Sydney', country: 'AU', views: 1 },
      { city: 'London', country: 'GB', views: 1 },
      { city: 'unknown', country: null, views: 1 },
    ]);
    expect(report.by_utm_source).toEqual({ unknown: 3 });
    const overview = await getData(t, alice.key, '/v1/analytics/overview', period);
    expect(overview.by_referrer).toEqual({ direct: 2, 'search.example': 1 });
    expect(overview.by_utm_source).toEqual({ unknown: 3 });
  });
});
