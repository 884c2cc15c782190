import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ViewRecorder } from '../../src/features/analytics/view-recorder.js';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { createAccount, type Account, type TestApp } from '../helpers/app.js';
import { createTag, getData, startAnalyticsApp, viewRow, visitorId, type CreatedTag } from './support.js';

/**
 * Ingestion counts a batch's new visitors by probing the open visitor sets' keys, one probe per
 * distinct visitor. PostgreSQL could instead hash the whole of a set's table for every batch
 * (it knows nothing of the temporary batch's rows), which costs each batch a scan of every open
 * visitor row of every tag: the sets must never be scanned whole.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('ingestion on PostgreSQL', () => {
  let t: TestApp;
  let owner: Account;
  let tag: CreatedTag;

  beforeAll(async () => {
    t = await startAnalyticsApp();
    t.clock.freeze(new Date('2026-09-01T10:00:00.000Z'));
    owner = await createAccount(t, 'pro');
    tag = await createTag(t, owner.key, { title: 'Probed' });
  });
  afterAll(() => t.close());

  const seqScans = async () => {
    const { rows } = await sql<{ relname: string; seq_scan: string }>`
      SELECT relname, seq_scan FROM pg_stat_user_tables
      WHERE schemaname = ${t.config.databaseSchema} AND relname IN ('tag_visitor_days', 'tag_visitor_hours')
      ORDER BY relname`.execute(t.services.db);
    return rows.map((row) => [row.relname, Number(row.seq_scan)]);
  };

  it('counts new visitors by key, never by scanning the visitor sets', async () => {
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

    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-09-01', end_date: '2026-09-02' });
    expect(report.summary).toMatchObject({ total_views: 900, unique_views: 700 });
  });
});
