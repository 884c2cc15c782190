import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migratorOf } from '../../src/db/database.js';
import { ViewRecorder } from '../../src/features/analytics/view-recorder.js';
import { createTag, getData, inboxRecords, useAnalyticsApp, view, viewRow, visitorId } from './support.js';
import { useAccount } from '../helpers/harness.js';

/**
 * Migration 0015 replaced pending_views (views stored, awaiting their rollup) with the inbox of
 * records; 0016 keeps the inbox as one row per group of views instead of one per view. Across
 * each, in both directions, a view answered but not yet counted stays exactly that: its record,
 * in its order, not lost, not counted twice, with the time on page a beacon gave it.
 */
describe('the inbox migrations: 0015 (pending views become records) and 0016 (records become groups)', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');

  async function migrateTo(name: string): Promise<void> {
    const { error } = await migratorOf(t.database).migrateTo(name);
    expect(error).toBeUndefined();
  }

  it('0015 keeps every answered view, counted once, with its duration', async () => {
    const tag = await createTag(t, owner.key, { title: 'Across 0015' });
    const ids: string[] = [];
    for (const [i, at] of ['2026-05-01T10:00:00.000Z', '2026-05-01T10:30:00.000Z', '2026-05-01T11:15:00.000Z'].entries()) {
      ids.push((await view(t, tag.short_id, { at, visitor: visitorId(`mig${i % 2}`) })).split('.')[0]!);
    }

    // Down: the records become views rows awaiting their rollup, as the older version kept them.
    await migrateTo('0014_idempotency_keys');
    // pending_views belongs to the older schema: not in the current schema's types.
    const db = t.database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const pending = (await db.selectFrom('pending_views').select('view_id').orderBy('view_id').execute()).map((row) => row.view_id);
    expect(pending).toEqual([...ids].sort());
    const stored = await db.selectFrom('views').select(['id', 'environment', 'owner_id']).where('tag_id', '=', tag.id).execute();
    expect(stored).toHaveLength(3);
    expect(stored.every((row) => row.environment === 'live' && row.owner_id === owner.userId)).toBe(true);
    // The older version's beacon set the time of a pending view on its row.
    await db.updateTable('views').set({ duration_seconds: 40 }).where('id', '=', ids[0]!).execute();

    // Up again: records once more, the views rows gone until ingested.
    await migrateTo('0015_view_inbox');
    expect(await db.selectFrom('views').select('id').where('tag_id', '=', tag.id).execute()).toEqual([]);
    expect(await db.selectFrom('view_inbox').select('seq').execute()).toHaveLength(3);
    // The later migrations (0016: groups of records) take them on, as they would in an upgrade.
    expect((await migratorOf(t.database).migrateToLatest()).error).toBeUndefined();

    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-05-01', end_date: '2026-05-02' });
    expect(report.summary).toEqual({
      total_views: 3,
      unique_views: 2,
      qr_scans: 0,
      direct_visits: 3,
      average_time_seconds: 40,
      bot_views: 0,
    });
    const rows = await db.selectFrom('views').select(['id', 'duration_seconds']).where('tag_id', '=', tag.id).orderBy('id').execute();
    expect(rows.map((row) => [row.id, row.duration_seconds])).toEqual([...ids].sort().map((id) => [id, id === ids[0] ? 40 : null]));
  });

  it('0016 keeps every answered view, in order, counted once', async () => {
    const tag = await createTag(t, owner.key, { title: 'Across 0016' });
    // Recorded in one turn: one group of two. Then a page's view: a group of one.
    const recorder = new ViewRecorder(t.services.db, t.app.log);
    const at = '2026-06-01T10:00:00.000Z';
    t.clock.freeze(new Date(at));
    const grouped = [
      viewRow({ id: tag.id, ownerId: owner.userId }, at, visitorId('grp0')),
      viewRow({ id: tag.id, ownerId: owner.userId }, at, visitorId('grp1')),
    ];
    await Promise.all(grouped.map((row) => recorder.record(row)));
    const token = await view(t, tag.short_id, { at: '2026-06-01T11:30:00.000Z', visitor: visitorId('grp2') });
    const ids = [...grouped.map((row) => row.id), token.split('.')[0]!];
    const before = await inboxRecords(t.database.db);
    expect(before.map((record) => record[0])).toEqual(ids);

    // The older schema's rows hold one record each, and no count: not in the current types.
    const db = t.database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    expect((await db.selectFrom('view_inbox').select('views').orderBy('seq').execute()).map((row) => Number(row.views))).toEqual([2, 1]);
    await migrateTo('0015_view_inbox');
    const rows = await db.selectFrom('view_inbox').select('seq').execute();
    expect(rows).toHaveLength(3);

    await migrateTo('0016_view_inbox_groups');
    const groups = await db.selectFrom('view_inbox').select(['views']).orderBy('seq').execute();
    expect(groups.map((group) => Number(group.views))).toEqual([1, 1, 1]);
    expect(await inboxRecords(t.database.db)).toEqual(before);
    expect((await migratorOf(t.database).migrateToLatest()).error).toBeUndefined();

    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-06-01', end_date: '2026-06-02' });
    expect(report.summary.total_views).toBe(3);
    expect(report.summary.unique_views).toBe(3);
    const stored = await db.selectFrom('views').select('id').where('tag_id', '=', tag.id).orderBy('id').execute();
    expect(stored.map((row) => row.id)).toEqual([...ids].sort());
    expect(await inboxRecords(t.database.db)).toEqual([]);
  });
});
