import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { closeVisitorDays, rebuildStaleScopeDays } from '../../src/features/analytics/sealing.js';
import { decodeVisitorSet } from '../../src/features/analytics/visitor-sets.js';
import { migratorOf } from '../../src/db/database.js';
import { createKey, request, type TestApp } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, getData, useAnalyticsApp, view, visitorId, type CreatedTag } from './support.js';

/**
 * The overview's unique_views: distinct visitors of all the account's tags over the period,
 * whether their days are closed (the scope's visitor sets) or not (the open rows), and without
 * the visitors of tags deleted since.
 */
describe('overview: distinct visitors of an account over any period', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  let orgKey: string;
  let A: CreatedTag;
  let B: CreatedTag;
  let C: CreatedTag;
  const v1 = visitorId('ov1');
  const v2 = visitorId('ov2');
  const v3 = visitorId('ov3');
  const v4 = visitorId('ov4');
  const v5 = visitorId('ov5');
  const v6 = visitorId('ov6');

  const uniques = async (key: string, start: string, end: string): Promise<number> =>
    (await getData(t, key, '/v1/analytics/overview', { start_date: start, end_date: end })).totals.unique_views;

  /** The scope's stored sets, as day: [size, stale]. */
  async function scopeSets(scopeId: string): Promise<Record<string, [number, number]>> {
    const rows = await t.database.db
      .selectFrom('scope_day_visitors')
      .select(['day', 'visitors', 'stale'])
      .where('scope_id', '=', scopeId)
      .orderBy('day')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.day, [decodeVisitorSet(r.visitors).length, Number(r.stale)]]));
  }

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-06-01T08:00:00.000Z'));
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Visitors org', ownerEmail: owner.email, plan: 'pro' });
    orgKey = (await createKey(t, owner.email, { organizationId: org.id })).key;
    [A, B, C] = [
      await createTag(t, owner.key, { title: 'A' }),
      await createTag(t, owner.key, { title: 'B' }),
      await createTag(t, owner.key, { title: 'C' }),
    ];
    const O = await createTag(t, orgKey, { title: 'Org' });
    const visits: Array<[CreatedTag, string, string]> = [
      [A, '2026-06-01T09:00:00.000Z', v1],
      [A, '2026-06-01T09:30:00.000Z', v2],
      [B, '2026-06-01T10:00:00.000Z', v1],
      [B, '2026-06-01T10:30:00.000Z', v3],
      [A, '2026-06-02T09:00:00.000Z', v2],
      [C, '2026-06-02T09:30:00.000Z', v4],
      // 06-03 is today: its day stays open.
      [B, '2026-06-03T09:00:00.000Z', v1],
      [C, '2026-06-03T09:30:00.000Z', v5],
      // The organization's: another scope, though the same person owns both.
      [O, '2026-06-01T11:00:00.000Z', v1],
      [O, '2026-06-01T11:30:00.000Z', v6],
    ];
    for (const [tag, at, visitor] of visits) await view(t, tag.short_id, { at, visitor });
    t.clock.freeze(new Date('2026-06-03T12:00:00.000Z'));
    // 06-01 and 06-02 close: 3 tag-days of the account, 1 of the organization.
    expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(5);
  });

  it('counts each visitor once across tags and days, closed and open alike; each scope its own', async () => {
    expect(await scopeSets(owner.userId)).toEqual({ '2026-06-01': [3, 0], '2026-06-02': [2, 0] });
    expect(await uniques(owner.key, '2026-06-01', '2026-06-04')).toBe(5);
    expect(await uniques(owner.key, '2026-06-01', '2026-06-03')).toBe(4);
    expect(await uniques(owner.key, '2026-06-02', '2026-06-04')).toBe(4);
    expect(await uniques(owner.key, '2026-06-03', '2026-06-04')).toBe(2);
    const overview = await getData(t, owner.key, '/v1/analytics/overview', { start_date: '2026-06-01', end_date: '2026-06-04' });
    expect(overview.totals).toMatchObject({ views: 8, unique_views: 5 });
    expect(await uniques(orgKey, '2026-06-01', '2026-06-04')).toBe(2);
  });

  it('many overviews at once all answer, alike (each holds one connection of the pool, never waits for a second)', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => uniques(owner.key, '2026-06-01', '2026-06-04')));
    expect(answers).toEqual(Array.from({ length: 12 }, () => 5));
  });

  it("a deleted tag's visitors leave the count at once; its days' sets are rebuilt without them, or go", async () => {
    const remove = async (tag: CreatedTag) =>
      expect((await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: owner.key })).status).toBe(200);
    // C had v4 (06-02, closed) and v5 (06-03, open).
    await remove(C);
    expect(await scopeSets(owner.userId)).toEqual({ '2026-06-01': [3, 0], '2026-06-02': [2, 1] });
    expect(await uniques(owner.key, '2026-06-01', '2026-06-04')).toBe(3);
    expect(await uniques(owner.key, '2026-06-02', '2026-06-03')).toBe(1);
    expect(await rebuildStaleScopeDays(t.database.db, 100)).toBe(1);
    expect(await scopeSets(owner.userId)).toEqual({ '2026-06-01': [3, 0], '2026-06-02': [1, 0] });
    expect(await uniques(owner.key, '2026-06-01', '2026-06-04')).toBe(3);

    // A had v1 v2 (06-01) and v2 (06-02): 06-02 has no tag left with visitors.
    await remove(A);
    expect(await uniques(owner.key, '2026-06-01', '2026-06-04')).toBe(2);
    expect(await rebuildStaleScopeDays(t.database.db, 100)).toBe(2);
    expect(await scopeSets(owner.userId)).toEqual({ '2026-06-01': [2, 0] });
    expect(await uniques(owner.key, '2026-06-01', '2026-06-04')).toBe(2);
    expect(await uniques(orgKey, '2026-06-01', '2026-06-04')).toBe(2);
  });

  it('sets that predate the scope sets (migration 0009 leaves them empty and stale) count exactly, and are rebuilt', async () => {
    await t.database.db.updateTable('scope_day_visitors').set({ visitors: '', stale: 1 }).where('scope_id', '=', owner.userId).execute();
    expect(await uniques(owner.key, '2026-06-01', '2026-06-04')).toBe(2);
    expect(await rebuildStaleScopeDays(t.database.db, 100)).toBe(1);
    expect(await scopeSets(owner.userId)).toEqual({ '2026-06-01': [2, 0] });
    expect(await uniques(owner.key, '2026-06-01', '2026-06-02')).toBe(2);
  });
});

/**
 * A process keeps the sets it has read, by the revision their writer gave them
 * (perf/revision-cache.ts): a set written again, here with a view that arrived after its day
 * closed, is read anew, never answered from the copy kept before.
 */
describe('overview: sets written again after a process read them', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');

  const uniques = async () =>
    (await getData(t, owner.key, '/v1/analytics/overview', { start_date: '2026-06-01', end_date: '2026-06-02' })).totals.unique_views;

  it('a view counted into a closed day after an overview read its set is in the next overview', async () => {
    const A = await createTag(t, owner.key, { title: 'A' });
    const B = await createTag(t, owner.key, { title: 'B' });
    await view(t, A.short_id, { at: '2026-06-01T09:00:00.000Z', visitor: visitorId('late1') });
    await view(t, A.short_id, { at: '2026-06-01T10:00:00.000Z', visitor: visitorId('late2') });
    t.clock.freeze(new Date('2026-06-03T12:00:00.000Z'));
    expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(1);
    expect(await uniques()).toBe(2);

    // The day is closed; its set already kept by this process.
    await view(t, B.short_id, { at: '2026-06-01T23:00:00.000Z', visitor: visitorId('late3') });
    t.clock.freeze(new Date('2026-06-03T12:01:00.000Z'));
    expect(await uniques()).toBe(3);
    expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(1);
    expect(await uniques()).toBe(3);
  });

  it('migration 0031 gives every set a revision of its own, and the counts stay', async () => {
    const sets = () =>
      t.database.db
        .selectFrom('scope_month_visitors')
        .select(['month as first', 'revision'])
        .where('scope_id', '=', owner.userId)
        .unionAll(t.database.db.selectFrom('scope_day_visitors').select(['day as first', 'revision']).where('scope_id', '=', owner.userId))
        .execute();
    const before = await uniques();
    await migrate(t.database, '0030_audit_log_clustered');
    await migrate(t.database);
    const revisions = (await sets()).map((row) => row.revision);
    // 1 June's set and June's month row.
    expect(revisions).toHaveLength(2);
    expect(revisions.every((revision) => /^[0-9a-f]{12}$/.test(revision))).toBe(true);
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(await uniques()).toBe(before);
  });
});

async function migrate(database: TestApp['database'], to?: string): Promise<void> {
  const migrator = migratorOf(database);
  const { error } = to ? await migrator.migrateTo(to) : await migrator.migrateToLatest();
  expect(error).toBeUndefined();
}
