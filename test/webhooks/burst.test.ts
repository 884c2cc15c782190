import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createTags, createWebhook, deliveryEnv, deliveryRows } from './support.js';

/**
 * A burst of deliveries opens many TLS connections at once (up to 50 per webhook). Each must cost
 * little event-loop time, or the burst stalls the whole process (the API too, in `tagsvc serve`)
 * and, with a short WEBHOOK_TIMEOUT, the attempts of the burst time out together and are sent
 * again. With OUTBOUND_CA_FILE set, building the trust store anew for every connection (system
 * roots + the file, ~20 ms of CPU each) blocks the event loop for over a second per 50
 * connections; one SecureContext built once and shared keeps it near 100 ms here.
 */
const t = useApp(async () => ({ worker: true, env: await deliveryEnv() }));
let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start('ok');
});
afterAll(() => receiver.close());

it('50 simultaneous deliveries with OUTBOUND_CA_FILE all succeed on the first attempt (WEBHOOK_TIMEOUT 1s)', async () => {
  const alice = await createAccount(t, 'enterprise');
  const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
  await createTags(t, alice.key, 50, 'burst');
  const rows = await waitFor(
    async () => {
      const current = await deliveryRows(t, hook.id);
      return current.length === 50 && current.every((row) => row.attempt > 0) ? current : undefined;
    },
    15_000,
    'every delivery of the burst to be attempted',
  );
  const timeouts = await t.database.db
    .selectFrom('delivery_attempts')
    .select(['delivery_id', 'error'])
    .where(
      'delivery_id',
      'in',
      rows.map((row) => row.id),
    )
    .where('response_code', 'is', null)
    .execute();
  expect(timeouts).toEqual([]);
  expect(rows.map((row) => [row.status, row.attempt])).toEqual(rows.map(() => ['success', 1]));
  expect(receiver.received).toHaveLength(50);
  expect((await request(t, 'GET', '/v1/me', { key: alice.key })).status).toBe(200);
});
