import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import {
  createTags,
  createWebhook,
  deliveryEnv,
  deliveryRows,
  eventRows,
  firstDeliverySucceeded,
  spawnedTrust,
  spawnServer,
  type Spawned,
} from './support.js';

/** These tests run `bin/tagsvc`, which runs dist/: build it first (npm run build). */

describe('a process killed mid-delivery (SIGKILL) loses nothing', () => {
  const t = useApp(async () => ({ env: await deliveryEnv() }));
  let receiver: Receiver;
  const processes: Spawned[] = [];
  beforeAll(async () => {
    receiver = await Receiver.start('hang');
  });
  afterEach(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
  });
  afterAll(() => receiver.close());

  it('after a restart every event is delivered', { timeout: 45_000 }, async () => {
    const env = {
      ...t.env,
      // Quick retries, but enough of them that no delivery is given up (failed) while the
      // receiver hangs before the kill, even when a busy machine slows the test down.
      ...(await deliveryEnv({ WEBHOOK_TIMEOUT: '1s', WEBHOOK_RETRY_SCHEDULE: Array(8).fill('100ms').join(',') })),
      ...(await spawnedTrust()),
      LOG_LEVEL: 'info',
      PORT: '0',
    };
    const first = await spawnServer(env);
    processes.push(first.server);
    const alice = await createAccount(t);
    const created = await request(t, 'POST', '/v1/webhooks', {
      key: alice.key,
      baseUrl: first.url,
      body: { name: 'durable', url: receiver.url, events: ['tag.created'] },
    });
    expect(created.status).toBe(201);
    const hookId = created.body.data.id as string;
    const tagIds = await createTags(t, alice.key, 50, 'durable', first.url);
    const eventIds = (await eventRows(t, tagIds)).map((e) => e.id);
    expect(eventIds).toHaveLength(50);

    // The first server is mid-delivery (the receiver holds the requests open) when it dies.
    await waitFor(() => receiver.received.length >= 1, 15_000, 'a delivery request to arrive');
    await first.server.stop('SIGKILL');
    expect(first.server.child.signalCode).toBe('SIGKILL');
    const atKill = await deliveryRows(t, hookId);
    expect(atKill.filter((row) => row.status !== 'pending')).toEqual([]);
    const seenBeforeRestart = receiver.received.length;
    receiver.behaviour = 'ok';

    const second = await spawnServer(env);
    processes.push(second.server);
    // Claimed deliveries come back when their lease (timeout + 5 s) runs out.
    await waitFor(
      async () => {
        const rows = await deliveryRows(t, hookId);
        const seen = new Set(receiver.received.slice(seenBeforeRestart).map((r) => r.headers['webhook-id']));
        return rows.length === 50 && rows.every((row) => row.status === 'success') && eventIds.every((id) => seen.has(id));
      },
      25_000,
      'all 50 events delivered after the restart',
    ).catch(async (error: Error) => {
      // Say where it stood: the delivery states and the latest attempt errors.
      const rows = await deliveryRows(t, hookId);
      const states = rows
        .map((row) => `${row.status}/${row.attempt}`)
        .reduce<Record<string, number>>((acc, k) => ({ ...acc, [k]: (acc[k] ?? 0) + 1 }), {});
      const errors = await t.database.db.selectFrom('delivery_attempts').select('error').where('error', 'is not', null).limit(3).execute();
      throw new Error(`${error.message}: ${JSON.stringify(states)} ${JSON.stringify(errors)} received=${receiver.received.length}`);
    });
    const rows = await deliveryRows(t, hookId);
    expect(rows.map((row) => row.event_id).sort()).toEqual([...eventIds].sort());
    // The API of the restarted server agrees.
    const listed = await request(t, 'GET', `/v1/webhooks/${hookId}/deliveries?status=success&limit=100`, {
      key: alice.key,
      baseUrl: second.url,
    });
    expect(listed.body.pagination.total).toBe(50);
  });

  it('leaves the test delivery to the worker, which sends it once', { timeout: 45_000 }, async () => {
    receiver.behaviour = 'hang';
    const seenBefore = receiver.received.length;
    const env = { ...t.env, ...(await deliveryEnv({ WEBHOOK_TIMEOUT: '1s' })), ...(await spawnedTrust()), LOG_LEVEL: 'info', PORT: '0' };
    const first = await spawnServer(env);
    processes.push(first.server);
    const alice = await createAccount(t);
    const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });

    // The receiver holds the test request open; the server dies before it answers.
    const answer = request(t, 'POST', `/v1/webhooks/${hook.id}/test`, {
      key: alice.key,
      baseUrl: first.url,
      body: { event: 'tag.created' },
    }).catch((error: Error) => error);
    await waitFor(() => receiver.received.length === seenBefore + 1, 15_000, 'the test request to arrive');
    await first.server.stop('SIGKILL');
    expect(await answer).toBeInstanceOf(Error);
    const [atKill] = await deliveryRows(t, hook.id);
    expect(atKill).toMatchObject({ test: 1, status: 'pending', attempt: 0 });
    const testEventId = receiver.received[seenBefore]!.headers['webhook-id'];

    receiver.behaviour = 'ok';
    const second = await spawnServer(env);
    processes.push(second.server);
    // The request's lease (timeout + 5 s) runs out, then the worker makes the attempt.
    const delivered = await firstDeliverySucceeded(t, hook.id, 25_000);
    expect(delivered).toMatchObject({ test: 1, status: 'success', attempt: 1, next_attempt_at: null });
    expect(receiver.received.slice(seenBefore).map((r) => r.headers['webhook-id'])).toEqual([testEventId, testEventId]);
  });
});
