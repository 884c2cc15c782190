import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createKey, expectError, request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, get, getData, useAnalyticsApp, view, visitorId, type CreatedTag } from './support.js';

/**
 * Tenant isolation of every analytics endpoint: another account's tag is 403, a test key sees no
 * live tag (404) and counts no live view, and analytics:read is required.
 */
describe('analytics isolation and permissions', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'enterprise');
  const mallory = useAccount(t, 'enterprise');
  let tag: CreatedTag;
  let malloryTag: CreatedTag;
  const PERIOD = { start_date: '2026-06-01', end_date: '2026-06-03' };

  const tagPaths = (id: string) => [
    `/v1/tags/${id}/analytics`,
    `/v1/tags/${id}/analytics/views`,
    `/v1/tags/${id}/analytics/logs`,
    `/v1/tags/${id}/analytics/realtime`,
  ];

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-06-01T09:00:00.000Z'));
    tag = await createTag(t, alice.key, { title: 'Alice only', access_logging: true });
    malloryTag = await createTag(t, mallory.key, { title: 'Mallory only', access_logging: true });
    await view(t, tag.short_id, { at: '2026-06-01T10:00:00.000Z', visitor: visitorId('i1') });
    await view(t, tag.short_id, { at: '2026-06-02T10:00:00.000Z', scan: true, visitor: visitorId('i2') });
    await view(t, malloryTag.short_id, { at: '2026-06-02T11:00:00.000Z', visitor: visitorId('i3') });
    t.clock.freeze(new Date('2026-06-02T12:00:00.000Z'));
  });

  it("every per-tag endpoint answers 403 for another account's tag, by id or short id", async () => {
    for (const id of [tag.id, tag.short_id]) {
      for (const path of tagPaths(id))
        expectError(await get(t, mallory.key, path, path.endsWith('realtime') ? {} : PERIOD), 403, 'forbidden');
    }
    for (const path of tagPaths(tag.id)) expect((await get(t, alice.key, path)).status, path).toBe(200);
    expectError(await get(t, mallory.key, '/v1/analytics/export', { tag_ids: tag.id }), 403, 'forbidden');
    for (const path of tagPaths('tag_01jzzzzzzzzzzzzzzzzzzzzzzz')) expectError(await get(t, alice.key, path), 404, 'not_found');
  });

  it('account-wide endpoints only hold the caller’s own tags', async () => {
    const overview = await getData(t, alice.key, '/v1/analytics/overview', PERIOD);
    expect(overview.totals).toEqual({ views: 2, unique_views: 2, qr_scans: 1, tags_created: 1, files_uploaded: 0, bot_views: 0 });
    expect(overview.top_tags).toEqual([{ id: tag.id, title: 'Alice only', views: 2 }]);
    const malloryOverview = await getData(t, mallory.key, '/v1/analytics/overview', PERIOD);
    expect(malloryOverview.totals).toEqual({ views: 1, unique_views: 1, qr_scans: 0, tags_created: 1, files_uploaded: 0, bot_views: 0 });
    expect(malloryOverview.top_tags).toEqual([{ id: malloryTag.id, title: 'Mallory only', views: 1 }]);

    const csv = await get(t, mallory.key, '/v1/analytics/export', PERIOD);
    expect(csv.text).toBe(
      `date,tag_id,tag_title,views,unique_views,qr_scans,direct_visits\n2026-06-02,${malloryTag.id},Mallory only,1,1,0,1\n`,
    );
    const json = await get(t, mallory.key, '/v1/analytics/export', { ...PERIOD, format: 'json', include: 'summary,views,logs' });
    expect(json.body.data.views.map((v: { tag_id: string }) => v.tag_id)).toEqual([malloryTag.id]);
    expect(json.body.data.logs.map((v: { tag_id: string }) => v.tag_id)).toEqual([malloryTag.id]);
  });

  it('a test key sees no live tag and counts no live view', async () => {
    const testKey = (await createKey(t, alice.email, { test: true })).key;
    for (const path of tagPaths(tag.id)) expectError(await get(t, testKey, path), 404, 'not_found');
    expect(await getData(t, testKey, '/v1/analytics/overview', PERIOD)).toEqual({
      period: { start: '2026-06-01', end: '2026-06-03' },
      timezone: 'UTC',
      totals: { views: 0, unique_views: 0, qr_scans: 0, tags_created: 0, files_uploaded: 0, bot_views: 0 },
      top_tags: [],
      by_day: [
        { date: '2026-06-01', views: 0, scans: 0 },
        { date: '2026-06-02', views: 0, scans: 0 },
      ],
      by_referrer: {},
      by_utm_source: {},
    });
    expect((await get(t, testKey, '/v1/analytics/export', PERIOD)).text).toBe(
      'date,tag_id,tag_title,views,unique_views,qr_scans,direct_visits\n',
    );
    expectError(await get(t, testKey, '/v1/analytics/export', { tag_ids: tag.id }), 404, 'not_found');

    // A sandbox tag's views are the test key's alone.
    const sandboxTag = await createTag(t, testKey, { title: 'Sandbox' });
    await view(t, sandboxTag.short_id, { at: '2026-06-02T12:30:00.000Z', visitor: visitorId('i4') });
    t.clock.freeze(new Date('2026-06-02T13:00:00.000Z'));
    expect((await getData(t, testKey, '/v1/analytics/overview', PERIOD)).totals).toEqual({
      views: 1,
      unique_views: 1,
      qr_scans: 0,
      tags_created: 1,
      files_uploaded: 0,
      bot_views: 0,
    });
    expect((await getData(t, alice.key, '/v1/analytics/overview', PERIOD)).totals).toEqual({
      views: 2,
      unique_views: 2,
      qr_scans: 1,
      tags_created: 1,
      files_uploaded: 0,
      bot_views: 0,
    });
    expect((await getData(t, testKey, `/v1/tags/${sandboxTag.id}/analytics`, PERIOD)).summary.total_views).toBe(1);
    expectError(await get(t, alice.key, `/v1/tags/${sandboxTag.id}/analytics`), 404, 'not_found');
  });

  it("an organization's analytics are its keys' alone: a member's personal key, or another organization's, gets 403", async () => {
    const org = await accounts.createOrganization(t.services, OPERATOR, {
      name: 'Analytics org',
      ownerEmail: alice.email,
      plan: 'enterprise',
    });
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: mallory.email, role: 'admin' });
    const aliceOrgKey = (await createKey(t, alice.email, { organizationId: org.id })).key;
    const malloryOrgKey = (await createKey(t, mallory.email, { organizationId: org.id })).key;
    const other = await accounts.createOrganization(t.services, OPERATOR, {
      name: 'Other org',
      ownerEmail: mallory.email,
      plan: 'enterprise',
    });
    const otherKey = (await createKey(t, mallory.email, { organizationId: other.id })).key;
    const orgTag = await createTag(t, aliceOrgKey, { title: 'Org tag', access_logging: true });
    await view(t, orgTag.short_id, { at: '2026-06-02T12:10:00.000Z', visitor: visitorId('i5') });
    await view(t, orgTag.short_id, { at: '2026-06-02T12:20:00.000Z', visitor: visitorId('i1') });

    // Any key of the organization, whoever made it, reads them.
    for (const key of [aliceOrgKey, malloryOrgKey]) {
      expect((await getData(t, key, `/v1/tags/${orgTag.id}/analytics`, PERIOD)).summary).toMatchObject({ total_views: 2, unique_views: 2 });
      const overview = await getData(t, key, '/v1/analytics/overview', PERIOD);
      expect(overview.totals).toMatchObject({ views: 2, unique_views: 2, tags_created: 1 });
      expect(overview.top_tags).toEqual([{ id: orgTag.id, title: 'Org tag', views: 2 }]);
      expect((await get(t, key, '/v1/analytics/export', PERIOD)).text.trim().split('\n').slice(1)).toEqual([
        `2026-06-02,${orgTag.id},Org tag,2,2,0,2`,
      ]);
    }
    // Personal keys of its members, and another organization's key, do not.
    for (const key of [alice.key, mallory.key, otherKey]) {
      for (const path of tagPaths(orgTag.id))
        expectError(await get(t, key, path, path.endsWith('realtime') ? {} : PERIOD), 403, 'forbidden');
      expectError(await get(t, key, '/v1/analytics/export', { ...PERIOD, tag_ids: orgTag.id }), 403, 'forbidden');
    }
    // Nor do the organization's views enter its members' own overviews.
    expect((await getData(t, alice.key, '/v1/analytics/overview', PERIOD)).totals).toMatchObject({ views: 2, unique_views: 2 });
    expect((await getData(t, otherKey, '/v1/analytics/overview', PERIOD)).totals).toMatchObject({ views: 0, unique_views: 0 });
  });

  it('analytics:read is required by every analytics endpoint, and enough for them', async () => {
    const tagsOnly = (await createKey(t, alice.email, { permissions: 'tags:read,tags:write' })).key;
    const paths = [...tagPaths(tag.id), '/v1/analytics/overview', '/v1/analytics/export'];
    for (const path of paths) {
      const response = await get(t, tagsOnly, path);
      expectError(response, 403, 'forbidden');
      expect(response.body.error.message, path).toContain('analytics:read');
    }
    const analyticsOnly = (await createKey(t, alice.email, { permissions: 'analytics:read' })).key;
    for (const path of paths) expect((await get(t, analyticsOnly, path)).status, path).toBe(200);
    expectError(await request(t, 'GET', '/v1/analytics/overview'), 401, 'unauthorized');
  });
});
