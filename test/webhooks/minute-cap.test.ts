import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createTags, createWebhook, deliveryEnv, deliveryRows, waitDispatched } from './support.js';

// The production timeout (30 s) rather than 1 s: while OUTBOUND_CA_FILE is rebuilt for every
// connection (see burst.test.ts), each burst of 50 new TLS connections blocks the event loop
// for a second or more (several on a busy machine), and a timed-out attempt would wait for a
// retry that never comes due while the clock is frozen.
const t = useApp(async () => ({ worker: true, env: await deliveryEnv({ WEBHOOK_TIMEOUT: '30s' }) }));
let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start('ok');
});
afterAll(() => receiver.close());

it('over 1000 deliveries a minute per webhook the excess is queued, not dropped', { timeout: 90_000 }, async () => {
  const alice = await createAccount(t, 'enterprise');
  const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
  // Time stands still: the minute never ends until the test moves the clock.
  t.clock.freeze();
  const frozenAt = t.clock.now().getTime();
  const tagIds = await createTags(t, alice.key, 1005, 'capped');
  const events = await waitDispatched(t, tagIds, 1005, 30_000);

  const counts = async () => {
    const rows = await deliveryRows(t, hook.id);
    return { rows, success: rows.filter((r) => r.status === 'success').length, pending: rows.filter((r) => r.status === 'pending') };
  };
  // Settles at exactly 1000 delivered and 5 waiting for the next minute.
  const capped = await waitFor(
    async () => {
      const state = await counts();
      const settled =
        state.success === 1000 &&
        state.pending.length === 5 &&
        state.pending.every((r) => r.next_attempt_at! > t.clock.now().toISOString());
      return settled && receiver.received.length === 1000 ? state : undefined;
    },
    45_000,
    '1000 deliveries and 5 queued',
  ).catch(async (error: Error) => {
    const { success, pending } = await counts();
    const failedAttempts = await t.database.db
      .selectFrom('delivery_attempts')
      .select('error')
      .where('response_code', 'is', null)
      .limit(3)
      .execute();
    throw new Error(
      `${error.message}: success=${success} pending=${pending.length} received=${receiver.received.length} ${JSON.stringify(failedAttempts)}`,
    );
  });
  expect(capped.rows).toHaveLength(1005);
  for (const row of capped.pending) {
    expect(row.attempt).toBe(0);
    expect(row.claimed_until).toBeNull();
    const wait = Date.parse(row.next_attempt_at!) - frozenAt;
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(61_000);
  }
  const queued = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=pending`, { key: alice.key });
  expect(queued.body.pagination.total).toBe(5);
  expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1000);

  // A minute later the queue drains.
  t.clock.advance(61_000);
  await waitFor(async () => (await counts()).success === 1005 && receiver.received.length >= 1005, 15_000, 'all 1005 deliveries');
  const ids = receiver.received.map((r) => r.headers['webhook-id']!);
  expect(ids).toHaveLength(1005);
  expect(new Set(ids).size).toBe(1005);
  expect([...ids].sort()).toEqual(events.map((e) => e.id).sort());
  const late = (await deliveryRows(t, hook.id)).filter((r) => Date.parse(r.delivered_at!) >= frozenAt + 61_000);
  expect(late).toHaveLength(5);
  expect(late.map((r) => r.id).sort()).toEqual(capped.pending.map((r) => r.id).sort());
});
