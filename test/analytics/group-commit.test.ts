import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SQLITE_FILE, type Db } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { ViewRecorder } from '../../src/features/analytics/view-recorder.js';
import { createTag, getData, useAnalyticsApp, viewRow, visitorId, type CreatedTag } from './support.js';
import { useAccount } from '../helpers/harness.js';

/**
 * Group commit (view-recorder.ts): the views that arrive while a group is being written share
 * the next statement and transaction, instead of one each. The recorder runs here on a second
 * connection to the test's database that logs every statement it sends, and the views it
 * commits are then counted by the API like any other.
 */
describe('view recording commits views in groups', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  let tag: CreatedTag;
  let db: Kysely<Database>;
  const statements: string[] = [];

  /** The test's database through a connection of our own, each statement logged. */
  function loggedConnection(): Kysely<Database> {
    const log = (event: { level: string; query: { sql: string } }) => {
      if (event.level === 'query') statements.push(event.query.sql);
    };
    if (t.config.databaseUrl) {
      const pool = new pg.Pool({ connectionString: t.config.databaseUrl, options: `-c search_path="${t.config.databaseSchema}"`, max: 4 });
      return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    }
    const sqlite = new SQLite(join(t.config.dataDir, SQLITE_FILE));
    sqlite.pragma('busy_timeout = 5000');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log });
  }

  const viewOf = (i: number) => viewRow({ id: tag.id, ownerId: owner.userId }, t.clock.now().toISOString(), visitorId(`group${i}`));

  const viewInserts = () => statements.filter((text) => /INSERT INTO view_inbox \(/i.test(text)).length;

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-07-01T10:00:00.000Z'));
    tag = await createTag(t, owner.key, { title: 'Grouped' });
    db = loggedConnection();
  });
  afterAll(() => db.destroy());

  it('50 views that arrive together: one statement, and each promise resolves once they are committed', async () => {
    const recorder = new ViewRecorder(db as Db, t.app.log);
    await Promise.all(Array.from({ length: 50 }, (_, i) => recorder.record(viewOf(i))));
    expect(viewInserts()).toBe(1);
    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-07-01', end_date: '2026-07-02' });
    expect(report.summary).toMatchObject({ total_views: 50, unique_views: 50 });
  });

  it('views arriving in three separate bursts: three groups, all counted', async () => {
    const recorder = new ViewRecorder(db as Db, t.app.log);
    const before = viewInserts();
    for (let burst = 0; burst < 3; burst++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => recorder.record(viewOf(100 + burst * 10 + i))));
    }
    expect(viewInserts() - before).toBe(3);
    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-07-01', end_date: '2026-07-02' });
    expect(report.summary.total_views).toBe(80);
  });

  // On PostgreSQL a group's statement is a round trip: views keep arriving while it is out.
  it.skipIf(!process.env.TEST_DATABASE_URL)('views that arrive while a group is out all wait for it, then go in one group', async () => {
    const recorder = new ViewRecorder(db as Db, t.app.log);
    const before = viewInserts();
    // Another session holds the inbox, so the first group's statement waits for it.
    const holder = new pg.Client({ connectionString: t.config.databaseUrl, options: `-c search_path="${t.config.databaseSchema}"` });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE view_inbox IN EXCLUSIVE MODE');
      const first = recorder.record(viewOf(200));
      await vi.waitFor(async () => {
        const { rows } = await holder.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO view_inbox%'`,
        );
        expect(Number(rows[0]!.n)).toBe(1);
      });
      // Forty more, five an event-loop turn, while the first group is out.
      const later: Promise<void>[] = [];
      for (let turn = 0; turn < 8; turn++) {
        for (let i = 0; i < 5; i++) later.push(recorder.record(viewOf(300 + turn * 5 + i)));
        await setImmediate();
      }
      await holder.query('COMMIT');
      await Promise.all([first, ...later]);
    } finally {
      await holder.end();
    }
    expect(viewInserts() - before).toBe(2);
    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-07-01', end_date: '2026-07-02' });
    expect(report.summary.total_views).toBe(121);
  });
});
