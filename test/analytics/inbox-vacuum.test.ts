import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { countInboxViews } from '../../src/features/analytics/ingestion.repository.js';
import { ViewRecorder } from '../../src/features/analytics/view-recorder.js';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { analyticsRollupJob } from '../../src/jobs/analytics-rollup.js';
import { createTag, getData, useAnalyticsApp, viewRow, visitorId, type CreatedTag } from './support.js';
import { useAccount } from '../helpers/harness.js';

/**
 * The inbox's records come and go by the thousand; on PostgreSQL each group leaves a dead tuple
 * until a vacuum, and the oldest records are found only past them. The worker's rollup job
 * vacuums the inbox once 20,000 views have gone through, whatever autovacuum does (this
 * machine's has it off).
 *
 * Ingestion counts a batch's new visitors by probing the open visitor sets' key, one probe per
 * distinct visitor. PostgreSQL could instead hash the whole of a set's table for every batch
 * (it knows nothing of the temporary batch's rows), which costs each batch a scan of every open
 * visitor row of every tag: the sets must never be scanned whole.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('the view inbox on PostgreSQL', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  let tag: CreatedTag;

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-07-01T10:00:00.000Z'));
    tag = await createTag(t, owner.key, { title: 'Busy' });
  });

  const inboxStats = async () => {
    const { rows } = await sql<{ vacuum_count: string }>`
      SELECT vacuum_count FROM pg_stat_user_tables
      WHERE schemaname = ${t.config.databaseSchema} AND relname = 'view_inbox'`.execute(t.services.db);
    return { vacuums: Number(rows[0]!.vacuum_count) };
  };

  it('is vacuumed by the rollup job once 20,000 views went through, every view counted once', async () => {
    const recorder = new ViewRecorder(t.services.db, t.app.log);
    const at = t.clock.now().toISOString();
    const views = 20_000;
    await Promise.all(
      Array.from({ length: views }, (_, i) =>
        recorder.record(viewRow({ id: tag.id, ownerId: owner.userId }, at, visitorId(`v${i % 500}`))),
      ),
    );
    const before = await inboxStats();

    await analyticsRollupJob.run(t.services);

    expect((await inboxStats()).vacuums).toBeGreaterThan(before.vacuums);
    expect(await countInboxViews(t.services.db)).toBe(0);
    // Empty, and still its pages: cutting them off the file would take a lock that stops the
    // pages' appends for as long as it lasts.
    const { rows } = await sql<{ bytes: string }>`SELECT pg_relation_size('view_inbox') AS bytes`.execute(t.services.db);
    expect(Number(rows[0]!.bytes)).toBeGreaterThan(0);
    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-07-01', end_date: '2026-07-02' });
    expect(report.summary).toMatchObject({ total_views: views, unique_views: 500 });
  });

  const seqScans = async () => {
    const { rows } = await sql<{ relname: string; seq_scan: string }>`
      SELECT relname, seq_scan FROM pg_stat_user_tables
      WHERE schemaname = ${t.config.databaseSchema} AND relname IN ('tag_visitor_days', 'tag_visitor_hours')
      ORDER BY relname`.execute(t.services.db);
    return rows.map((row) => [row.relname, Number(row.seq_scan)]);
  };

  it('counts new visitors by key, never by scanning the visitor sets', async () => {
    // A tag of its own: the test above has counted its visitors already.
    const tag = await createTag(t, owner.key, { title: 'Probed' });
    const recorder = new ViewRecorder(t.services.db, t.app.log);
    const at = t.clock.now().toISOString();
    const record = (count: number, offset: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          recorder.record(viewRow({ id: tag.id, ownerId: owner.userId }, at, visitorId(`p${(offset + i) % 700}`))),
        ),
      );
    // Ingested on one connection, whose statistics then reach pg_stat_user_tables before it
    // answers again (they are otherwise flushed up to a second later).
    const ingest = () =>
      t.services.db.connection().execute(async (connection) => {
        const ingested = await rollUpViews(connection);
        await sql`SELECT pg_stat_force_next_flush()`.execute(connection);
        return ingested;
      });
    // Open visitor rows, which the planner knows of: 500 visitors of the day and of the hour.
    await record(500, 0);
    expect(await ingest()).toBe(500);
    await sql`ANALYZE tag_visitor_days, tag_visitor_hours`.execute(t.services.db);
    const before = await seqScans();
    await record(400, 300);
    expect(await ingest()).toBe(400);
    expect(await seqScans()).toEqual(before);

    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-07-01', end_date: '2026-07-02' });
    expect(report.summary).toMatchObject({ total_views: 900, unique_views: 700 });
  });
});
