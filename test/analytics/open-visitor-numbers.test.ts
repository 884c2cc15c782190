import { beforeAll, describe, expect, it } from 'vitest';
import { purgeVisitorsBefore } from '../../src/features/analytics/retention.repository.js';
import { closeVisitorDays } from '../../src/features/analytics/sealing.js';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import type { Account, TestApp } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, getData, useAnalyticsApp, view, visitorId, type CreatedTag } from './support.js';

/** Distinct visitors of the account's views in [start, end): the brute-force count. */
async function viewsVisitors(t: TestApp, owner: Account, start: string, end: string): Promise<number> {
  const rows = await t.database.db
    .selectFrom('views')
    .select('visitor')
    .distinct()
    .where('owner_id', '=', owner.userId)
    .where('occurred_at', '>=', `${start}T00:00:00.000Z`)
    .where('occurred_at', '<', `${end}T00:00:00.000Z`)
    .execute();
  return rows.length;
}

/** The overview's distinct visitors of [start, end), through the API. */
async function overviewVisitors(t: TestApp, owner: Account, start: string, end: string): Promise<number> {
  return (await getData(t, owner.key, '/v1/analytics/overview', { start_date: start, end_date: end })).totals.unique_views;
}

/**
 * Open rows carry their visitor's number when the rollup writes them (migration 0013), so the
 * reports look up only the others. The figures must not change: every count here equals a
 * count of distinct visitors over the raw views, whichever way each open row gets its number
 * (stored, looked up because the visitor was numbered after the row was written, or none),
 * and the visitor purge never deletes a number an open row holds.
 */
describe('open rows with stored visitor numbers: the same distinct visitors', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  let A: CreatedTag;
  let B: CreatedTag;
  let C: CreatedTag;
  // y's id sorts first, so y is numbered before x: SQLite gives a deleted number again only
  // when it was the highest, and this test deletes y's while sets of its day are still kept.
  const [x, y, z, w] = ['onx', 'ona', 'onz', 'onw'].map(visitorId) as [string, string, string, string];

  /** Each open row's stored number, as tag title: { visitor name: has a number }. */
  async function storedNumbers(): Promise<Record<string, Record<string, boolean>>> {
    const rows = await t.database.db
      .selectFrom('tag_visitor_days as o')
      .innerJoin('tags', 'tags.id', 'o.tag_id')
      .select(['tags.title', 'o.visitor', 'o.visitor_number'])
      .execute();
    const names = new Map([x, y, z, w].map((key, i) => [key, ['x', 'y', 'z', 'w'][i]!]));
    const result: Record<string, Record<string, boolean>> = {};
    for (const row of rows) (result[row.title] ??= {})[names.get(row.visitor)!] = row.visitor_number !== null;
    return result;
  }

  const numbered = async () =>
    (await t.database.db.selectFrom('visitors').select('key').where('key', 'in', [x, y, z, w]).execute()).map((r) => r.key).sort();

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-06-01T08:00:00.000Z'));
    [A, B, C] = [
      await createTag(t, owner.key, { title: 'A' }),
      await createTag(t, owner.key, { title: 'B' }),
      await createTag(t, owner.key, { title: 'C' }),
    ];
    await view(t, A.short_id, { at: '2026-06-01T09:00:00.000Z', visitor: x });
    await view(t, A.short_id, { at: '2026-06-01T09:30:00.000Z', visitor: y });
    t.clock.freeze(new Date('2026-06-02T00:20:00.000Z'));
    // 06-01 closes: x and y are numbered.
    expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(1);
    await view(t, C.short_id, { at: '2026-06-02T20:00:00.000Z', visitor: z });
    // 06-03, before 06-02 closes: z has no number yet when its row on A is written.
    await view(t, A.short_id, { at: '2026-06-03T00:05:00.000Z', visitor: z });
    await rollUpViews(t.database.db);
    // x comes back: its row on A stores its number.
    await view(t, A.short_id, { at: '2026-06-03T00:06:00.000Z', visitor: x });
    await rollUpViews(t.database.db);
    // x and y were seen last on 06-01: only y's number goes, as an open row holds x's. Were
    // x's deleted, its next row would have none and x would count twice: by the number stored
    // on A's row, and by its id on B's.
    expect(await purgeVisitorsBefore(t.database.db, '2026-06-02')).toBe(1);
    expect(await numbered()).toEqual([x]);
    await view(t, B.short_id, { at: '2026-06-03T00:07:00.000Z', visitor: x });
    await view(t, B.short_id, { at: '2026-06-03T00:08:00.000Z', visitor: w });
    t.clock.freeze(new Date('2026-06-03T00:20:00.000Z'));
    // 06-02 closes: z is numbered after its row on A was written.
    expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(1);
  });

  it('stores the numbers visitors had when their rows were written', async () => {
    expect(await storedNumbers()).toEqual({ A: { z: false, x: true }, B: { x: true, w: false } });
    expect(await numbered()).toEqual([x, z].sort());
  });

  it('the overview counts each visitor once, as the raw views do, over every period', async () => {
    const days = ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04'];
    for (let i = 0; i < days.length; i++) {
      for (let j = i + 1; j < days.length; j++) {
        expect(await overviewVisitors(t, owner, days[i]!, days[j]!), `${days[i]} to ${days[j]}`).toBe(
          await viewsVisitors(t, owner, days[i]!, days[j]!),
        );
      }
    }
    expect(await overviewVisitors(t, owner, '2026-06-01', '2026-06-04')).toBe(4);
    expect(await overviewVisitors(t, owner, '2026-06-02', '2026-06-04')).toBe(3);
    expect(await overviewVisitors(t, owner, '2026-06-03', '2026-06-04')).toBe(3);
  });

  it("a tag's report counts its open rows' visitors the same way", async () => {
    const report = await getData(t, owner.key, `/v1/tags/${A.id}/analytics`, { start_date: '2026-06-01', end_date: '2026-06-04' });
    // x and y on 06-01; z and x on 06-03.
    expect(report.summary.unique_views).toBe(3);
    const today = await getData(t, owner.key, `/v1/tags/${A.id}/analytics`, { start_date: '2026-06-03', end_date: '2026-06-04' });
    expect(today.summary.unique_views).toBe(2);
  });
});

/**
 * The overview reads a long period's sets a month at a time (analytics.service.ts): visitors
 * on days of different months, and a day whose set is stale, count as the raw views do.
 */
describe('the overview over several months', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  const [a, b, c, d] = ['ma', 'mb', 'mc', 'md'].map(visitorId) as [string, string, string, string];

  const periods: Array<[string, string]> = [
    ['2026-01-01', '2026-05-11'],
    ['2026-01-15', '2026-02-16'],
    ['2026-02-15', '2026-04-02'],
    ['2026-03-31', '2026-04-02'],
    ['2026-04-01', '2026-05-11'],
  ];

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-01-15T08:00:00.000Z'));
    const A = await createTag(t, owner.key, { title: 'A' });
    const B = await createTag(t, owner.key, { title: 'B' });
    const visits: Array<[CreatedTag, string, string]> = [
      [A, '2026-01-15T09:00:00.000Z', a],
      [B, '2026-02-16T09:00:00.000Z', a],
      [A, '2026-02-20T09:00:00.000Z', b],
      [A, '2026-03-31T09:00:00.000Z', c],
      [B, '2026-04-01T09:00:00.000Z', b],
      [B, '2026-04-01T10:00:00.000Z', d],
      [A, '2026-05-02T09:00:00.000Z', d],
      // Today: open.
      [A, '2026-05-10T09:00:00.000Z', a],
    ];
    for (const [tag, at, visitor] of visits) await view(t, tag.short_id, { at, visitor });
    t.clock.freeze(new Date('2026-05-10T12:00:00.000Z'));
    expect(await closeVisitorDays(t.database.db, t.clock.now().getTime())).toBe(6);
    // 04-01 becomes stale: counted from its tags' own sets until rebuilt.
    await t.database.db.updateTable('scope_day_visitors').set({ stale: 1 }).where('day', '=', '2026-04-01').execute();
  });

  it('counts each visitor once across months, as the raw views do', async () => {
    for (const [start, end] of periods)
      expect(await overviewVisitors(t, owner, start, end), `${start} to ${end}`).toBe(await viewsVisitors(t, owner, start, end));
    expect(await overviewVisitors(t, owner, '2026-01-01', '2026-05-11')).toBe(4);
    expect(await overviewVisitors(t, owner, '2026-02-15', '2026-04-02')).toBe(4);
  });
});
