import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, get, getData, useAnalyticsApp, view, visitorId, type CreatedTag } from './support.js';

/**
 * compare=previous on the tag report and the overview: the figures of the period of the same
 * length just before, and each figure's change in per cent (null from 0), against figures
 * worked out by hand; the previous period stays within the plan's history.
 */
describe('analytics: compare=previous', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  let tag: CreatedTag;
  const CURRENT = { start_date: '2026-03-08', end_date: '2026-03-15' };
  const PREVIOUS = { start: '2026-03-01', end: '2026-03-08' };
  const [V1, V2, V3, V4] = ['c1', 'c2', 'c3', 'c4'].map(visitorId);

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-02-20T08:00:00.000Z'));
    tag = await createTag(t, alice.key, { title: 'Compared' });
    const s = tag.short_id;
    // The previous week: V1 twice, a scan by V2. A second tag is made in it.
    await view(t, s, { at: '2026-03-01T10:00:00.000Z', visitor: V1 });
    await view(t, s, { at: '2026-03-07T23:59:00.000Z', visitor: V1 });
    await view(t, s, { at: '2026-03-03T10:00:00.000Z', scan: true, visitor: V2 });
    await createTag(t, alice.key, { title: 'Made the week before' });
    // This week: V1 three times, V3 from another site, two scans by V4.
    for (const day of ['08', '09', '14']) await view(t, s, { at: `2026-03-${day}T12:00:00.000Z`, visitor: V1 });
    await view(t, s, { at: '2026-03-10T12:00:00.000Z', visitor: V3, referer: 'https://news.example.com/' });
    await view(t, s, { at: '2026-03-11T12:00:00.000Z', scan: true, visitor: V4 });
    await view(t, s, { at: '2026-03-12T12:00:00.000Z', scan: true, visitor: V4 });
    t.clock.freeze(new Date('2026-03-20T08:00:00.000Z'));
  });

  it('the tag report gains the previous week’s summary and the change of each figure', async () => {
    const data = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics`, { ...CURRENT, compare: 'previous' });
    expect(data.summary).toEqual({ total_views: 6, unique_views: 3, qr_scans: 2, direct_visits: 3, average_time_seconds: 0, bot_views: 0 });
    expect(data.previous).toEqual({
      period: PREVIOUS,
      summary: { total_views: 3, unique_views: 2, qr_scans: 1, direct_visits: 2, average_time_seconds: 0, bot_views: 0 },
    });
    // 6 against 3: +100 %; 3 against 2: +50 %; no time on page either week: null.
    expect(data.change).toEqual({
      total_views: 100,
      unique_views: 50,
      qr_scans: 100,
      direct_visits: 50,
      average_time_seconds: null,
      bot_views: null,
    });
    // Without compare the report is as before.
    const plain = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics`, CURRENT);
    expect(plain).not.toHaveProperty('previous');
    expect(plain).not.toHaveProperty('change');
    expect(plain.summary).toEqual(data.summary);
  });

  it('the overview gains the previous totals and their change, falls and all', async () => {
    const data = await getData(t, alice.key, '/v1/analytics/overview', { ...CURRENT, compare: 'previous' });
    expect(data.totals).toEqual({ views: 6, unique_views: 3, qr_scans: 2, tags_created: 0, files_uploaded: 0, bot_views: 0 });
    expect(data.previous).toEqual({
      period: PREVIOUS,
      totals: { views: 3, unique_views: 2, qr_scans: 1, tags_created: 1, files_uploaded: 0, bot_views: 0 },
    });
    expect(data.change).toEqual({ views: 100, unique_views: 50, qr_scans: 100, tags_created: -100, files_uploaded: null, bot_views: null });
  });

  it('rounds to one decimal and compares periods of any length', async () => {
    // 3 days (03-12..03-15: 2 views) against 03-09..03-12 (03-09, 03-10, 03-11: 3 views): -33.3 %.
    const data = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics`, {
      start_date: '2026-03-12',
      end_date: '2026-03-15',
      compare: 'previous',
    });
    expect(data.previous.period).toEqual({ start: '2026-03-09', end: '2026-03-12' });
    expect(data.previous.summary.total_views).toBe(3);
    expect(data.summary.total_views).toBe(2);
    expect(data.change.total_views).toBe(-33.3);
  });

  it('keeps the previous period within the plan’s history, and refuses an unknown comparison', async () => {
    // Pro keeps a year: the oldest kept day is 364 days before today, and the period before a
    // week that starts on it is empty; one that starts two days later compares with two days.
    const oldest = '2025-03-21';
    const first = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics`, {
      start_date: oldest,
      end_date: '2025-03-28',
      compare: 'previous',
    });
    expect(first.previous).toEqual({
      period: { start: oldest, end: oldest },
      summary: { total_views: 0, unique_views: 0, qr_scans: 0, direct_visits: 0, average_time_seconds: 0, bot_views: 0 },
    });
    expect(first.change.total_views).toBeNull();
    const later = await getData(t, alice.key, `/v1/tags/${tag.id}/analytics`, {
      start_date: '2025-03-23',
      end_date: '2025-03-30',
      compare: 'previous',
    });
    expect(later.previous.period).toEqual({ start: oldest, end: '2025-03-23' });

    expectError(await get(t, alice.key, `/v1/tags/${tag.id}/analytics`, { compare: 'last-year' }), 400, 'validation_error', 'compare');
    expectError(await get(t, alice.key, '/v1/analytics/overview', { compare: '' }), 400, 'validation_error', 'compare');
  });
});
