import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createTags, createWebhook, deliveryEnv, deliveryRows, eventRows, spawnedTrust, spawnTagsvc, type Spawned } from './support.js';

/**
 * Worker processes claim deliveries with row locks on PostgreSQL: two of them never send the
 * same one. It runs `bin/tagsvc`, which runs dist/: build it first (npm run build).
 */

describe.skipIf(!process.env.TEST_DATABASE_URL)('two worker processes on PostgreSQL', () => {
  // 10 s rather than 1 s: a timed-out attempt is legitimately sent again (at-least-once), which
  // on a busy machine would blur what this test checks: that no two workers claim the same delivery.
  const t = useApp(async () => ({ env: await deliveryEnv({ WEBHOOK_TIMEOUT: '10s' }) }));
  let receiver: Receiver;
  const workers: Spawned[] = [];
  beforeAll(async () => {
    receiver = await Receiver.start('ok');
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGTERM')));
    await receiver.close();
  });

  it('deliver each event exactly once', { timeout: 45_000 }, async () => {
    const env = { ...t.env, ...(await spawnedTrust()), LOG_LEVEL: 'info' };
    for (let i = 0; i < 2; i++) workers.push(spawnTagsvc(['worker'], env));
    await Promise.all(workers.map((w) => w.waitForOutput(/worker started/)));
    const alice = await createAccount(t, 'enterprise');
    const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
    const tagIds = await createTags(t, alice.key, 300, 'shared');
    const eventIds = (await eventRows(t, tagIds)).map((e) => e.id);
    expect(eventIds).toHaveLength(300);
    await waitFor(
      async () => {
        const rows = await deliveryRows(t, hook.id);
        return rows.length === 300 && rows.every((row) => row.status === 'success');
      },
      30_000,
      '300 deliveries',
    );
    // One more event going through both workers' loops flushes anything still in flight.
    const [marker] = await createTags(t, alice.key, 1, 'marker');
    const [markerEvent] = await eventRows(t, [marker!]);
    await waitFor(() => receiver.received.some((r) => r.headers['webhook-id'] === markerEvent!.id), 10_000, 'the marker event');

    const ids = receiver.received.map((r) => r.headers['webhook-id']!).filter((id) => id !== markerEvent!.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect([...ids].sort()).toEqual([...eventIds].sort());
    // Each went out in one attempt: no duplicate was hidden behind a retry either.
    const rows = await deliveryRows(t, hook.id);
    const retried = rows.filter((row) => row.event_id !== markerEvent!.id && row.attempt !== 1);
    const errors = await t.database.db
      .selectFrom('delivery_attempts')
      .select(['delivery_id', 'error'])
      .where('response_code', 'is', null)
      .execute();
    expect({ retried: retried.map((row) => row.event_id), errors }).toEqual({ retried: [], errors: [] });
    for (const worker of workers) expect(worker.child.exitCode).toBeNull();
  });
});
