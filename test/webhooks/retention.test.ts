import { afterAll, beforeAll, expect, it } from 'vitest';
import { deliveryRetentionJob } from '../../src/jobs/delivery-retention.js';
import { jobs } from '../../src/jobs/index.js';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv, deliveryRows, eventRows } from './support.js';

const DAY = 86_400_000;

const t = useApp(async () => ({ env: await deliveryEnv() }));
let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start('ok');
});
afterAll(() => receiver.close());

it('the delivery-retention job is registered with the worker', () => {
  expect(jobs).toContain(deliveryRetentionJob);
  expect(deliveryRetentionJob.name).toBe('delivery-retention');
});

it('deletes deliveries (with their attempts) older than 30 days and keeps newer ones', async () => {
  const alice = await createAccount(t);
  const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
  const send = async () => (await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key })).body.data.delivery_id as string;

  const old = await send(); // day 0, success
  receiver.behaviour = 'fail';
  const oldFailed = await send(); // day 0, failed
  receiver.behaviour = 'ok';
  // An event of day 0 that the worker had dispatched, and one it never did.
  const tags = (
    await request(t, 'POST', '/v1/tags/batch', { key: alice.key, body: { tags: [{ title: 'old' }, { title: 'undispatched' }] } })
  ).body.data.tags;
  const [dispatched, undispatched] = await eventRows(t, [tags[0].id, tags[1].id]);
  await t.database.db.updateTable('events').set({ dispatched_at: t.clock.now().toISOString() }).where('id', '=', dispatched!.id).execute();

  t.clock.advance(2 * DAY);
  const recent = await send(); // day 2: 29 days old when the job runs
  t.clock.advance(29 * DAY);
  const today = await send(); // day 31

  const attemptsOf = (ids: string[]) =>
    t.database.db.selectFrom('delivery_attempts').select('delivery_id').where('delivery_id', 'in', ids).execute();
  expect((await deliveryRows(t, hook.id)).map((d) => d.id)).toEqual([old, oldFailed, recent, today]);
  expect(await attemptsOf([old, oldFailed])).toHaveLength(2);

  await deliveryRetentionJob.run(t.services);

  expect((await deliveryRows(t, hook.id)).map((d) => d.id)).toEqual([recent, today]);
  expect(await attemptsOf([old, oldFailed])).toEqual([]);
  expect(await attemptsOf([recent, today])).toHaveLength(2);
  const listed = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries`, { key: alice.key });
  expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([today, recent]);
  const stats = (await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.stats;
  expect(stats).toMatchObject({ total_deliveries: 2, successful: 2, failed: 0 });
  // The dispatched event went with them; the one never dispatched is kept for the worker.
  expect((await eventRows(t, [tags[0].id, tags[1].id])).map((e) => e.id)).toEqual([undispatched!.id]);

  // Running it again changes nothing.
  await deliveryRetentionJob.run(t.services);
  expect((await deliveryRows(t, hook.id)).map((d) => d.id)).toEqual([recent, today]);
});
