import { beforeAll, describe, expect, it } from 'vitest';
import { countInboxViews, takeInboxBatch } from '../../src/features/analytics/ingestion.repository.js';
import { ViewRecorder } from '../../src/features/analytics/view-recorder.js';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { transaction } from '../../src/db/transaction.js';
import { createTag, getData, inboxRecords, useAnalyticsApp, viewRow, visitorId, type CreatedTag } from './support.js';
import { useAccount } from '../helpers/harness.js';

/**
 * The inbox keeps a row per group of views committed together (view-recorder.ts, at most 500
 * a group), and ingestion takes whole groups: as many of the oldest as hold fewer views before
 * them than its bound, so a transaction takes at least one group and at most the bound plus one
 * group's views.
 */
describe('the view inbox holds groups', () => {
  const t = useAnalyticsApp();
  const owner = useAccount(t, 'pro');
  let tag: CreatedTag;

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-08-01T10:00:00.000Z'));
    tag = await createTag(t, owner.key, { title: 'Grouped' });
  });

  it('one row per group, taken whole, every view counted once', async () => {
    const recorder = new ViewRecorder(t.services.db, t.app.log);
    const at = t.clock.now().toISOString();
    const rows = Array.from({ length: 2600 }, (_, i) => viewRow({ id: tag.id, ownerId: owner.userId }, at, visitorId(`g${i % 300}`)));
    await Promise.all(rows.map((row) => recorder.record(row)));

    const groups = await t.services.db.selectFrom('view_inbox').select('views').orderBy('seq').execute();
    expect(groups.map((group) => Number(group.views))).toEqual([500, 500, 500, 500, 500, 100]);
    expect(await countInboxViews(t.services.db)).toBe(2600);
    expect((await inboxRecords(t.services.db)).map((record) => record[0])).toEqual(rows.map((row) => row.id));

    // A bound of 1,200 takes the groups with 0, 500 and 1,000 views before them: 1,500 views.
    const taken = await transaction(t.services.db, async (trx) => {
      const count = await takeInboxBatch(trx, 1200);
      expect(await countInboxViews(trx)).toBe(1100);
      // Rolled back: the test looks at the batch's bounds only.
      throw Object.assign(new Error('rolled back'), { count });
    }).catch((error: { count: number }) => error.count);
    expect(taken).toBe(1500);
    expect(await countInboxViews(t.services.db)).toBe(2600);

    expect(await rollUpViews(t.services.db)).toBe(2600);
    expect(await countInboxViews(t.services.db)).toBe(0);
    const report = await getData(t, owner.key, `/v1/tags/${tag.id}/analytics`, { start_date: '2026-08-01', end_date: '2026-08-02' });
    expect(report.summary.total_views).toBe(2600);
    expect(report.summary.unique_views).toBe(300);
    const stored = await t.services.db.selectFrom('views').select('id').where('tag_id', '=', tag.id).orderBy('id').execute();
    expect(stored.map((row) => row.id)).toEqual(rows.map((row) => row.id).sort());
  });

  it('gives the event loop a turn between its transactions', async () => {
    const recorder = new ViewRecorder(t.services.db, t.app.log);
    const at = t.clock.now().toISOString();
    // 4,500 views: three transactions (2,000, 2,000 and 500 views).
    await Promise.all(
      Array.from({ length: 4500 }, (_, i) =>
        recorder.record(viewRow({ id: tag.id, ownerId: owner.userId }, at, visitorId(`turn${i % 50}`))),
      ),
    );
    // On SQLite every statement runs on this thread: a request waiting for its turn is served
    // only if ingestion lets the event loop go round between transactions.
    let turns = 0;
    let ingesting = true;
    const turn = () => {
      turns += 1;
      if (ingesting) setImmediate(turn);
    };
    setImmediate(turn);
    expect(await rollUpViews(t.services.db)).toBe(4500);
    ingesting = false;
    expect(turns).toBeGreaterThanOrEqual(2);
  });
});
