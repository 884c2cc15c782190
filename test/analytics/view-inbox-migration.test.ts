import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratorOf } from '../../src/db/database.js';
import { createAccount, type Account, type TestApp } from '../helpers/app.js';
import { createTag, getData, startAnalyticsApp, view, visitorId } from './support.js';

/**
 * Migration 0015 replaced pending_views (views stored, awaiting their rollup) with the inbox of
 * records. Across it, in both directions, a view answered but not yet counted stays exactly
 * that: not lost, not counted twice, with the time on page a beacon gave it.
 */
describe('migration 0015: pending views become inbox records, and back', () => {
  let t: TestApp;
  let owner: Account;

  beforeAll(async () => {
    t = await startAnalyticsApp();
    owner = await createAccount(t, 'pro');
  });
  afterAll(() => t.close());

  async function migrateTo(name: string): Promise<void> {
    const { error } = await migratorOf(t.database).migrateTo(name);
    expect(error).toBeUndefined();
  }

  it('keeps every answered view, counted once, with its duration', async () => {
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
    expect(report.summary).toEqual({ total_views: 3, unique_views: 2, qr_scans: 0, direct_visits: 3, average_time_seconds: 40 });
    const rows = await db.selectFrom('views').select(['id', 'duration_seconds']).where('tag_id', '=', tag.id).orderBy('id').execute();
    expect(rows.map((row) => [row.id, row.duration_seconds])).toEqual([...ids].sort().map((id) => [id, id === ids[0] ? 40 : null]));
  });
});
