import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../helpers/app.js';
import { spawnTagsvc, type Spawned } from '../webhooks/support.js';
import { createTag, useAnalyticsApp, UA, view } from './support.js';

/**
 * `tagsvc worker` in a process of its own, as deployments that scale it separately run it: its
 * rollup job counts the views the server commits while the server keeps committing more. On
 * SQLite both write the same file, so each must wait for the other's write lock rather than fail.
 */
describe('views rolled up by a separate worker process', () => {
  const t = useAnalyticsApp();
  let worker: Spawned;
  beforeAll(async () => {
    worker = spawnTagsvc(['worker'], { ...t.env, LOG_LEVEL: 'info' });
    await worker.waitForOutput(/worker started/);
  });
  afterAll(() => worker.stop('SIGTERM'));

  it('counts every view committed during steady page traffic, without a failed roll', { timeout: 30_000 }, async () => {
    const alice = await createAccount(t, 'enterprise');
    const tag = await createTag(t, alice.key, { title: 'Busy page' });
    // Page traffic for a few of the worker's one-second rolls: several browsers at once.
    const until = Date.now() + 3000;
    const counts = await Promise.all(
      Array.from({ length: 8 }, async () => {
        let served = 0;
        while (Date.now() < until) {
          await view(t, tag.short_id, { ua: UA.firefoxLinux });
          served += 1;
        }
        return served;
      }),
    );
    const served = counts.reduce((a, b) => a + b, 0);

    const db = t.database.db;
    await vi.waitFor(
      async () =>
        expect(
          Number(
            (
              await db
                .selectFrom('view_inbox')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ).toBe(0),
      { timeout: 10_000, interval: 100 },
    );
    const hourly = await db
      .selectFrom('tag_hourly')
      .select((eb) => eb.fn.sum('views').as('views'))
      .where('tag_id', '=', tag.id)
      .executeTakeFirstOrThrow();
    expect(Number(hourly.views)).toBe(served);
    expect(worker.output()).not.toMatch(/job failed|database is locked/);
  });
});
