import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as webhooks from '../../src/features/webhooks/index.js';
import { actorOf, type Account } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { Receiver } from '../helpers/receiver.js';
import { deliveryEnv } from './support.js';

/** latestDeliveries: the newest delivery of each webhook of a list page, in the actor's scope only. */
describe('webhooks: the latest delivery of each webhook', () => {
  const t = useApp(async () => ({ env: await deliveryEnv() }));
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver?.close());

  const hook = (account: Account, name: string) =>
    webhooks.createWebhook(t.services, actorOf(account), { name, url: receiver.url, events: ['tag.created'] });
  const send = async (account: Account, webhookId: string, event: 'tag.created' | 'tag.deleted') =>
    (await webhooks.sendTestEvent(t.services, actorOf(account), { webhookId, event })).delivery_id;

  it('gives the newest delivery of each webhook that has one, and nothing of another account', async () => {
    const busy = await hook(alice, 'busy');
    const quiet = await hook(alice, 'quiet');
    const other = await hook(alice, 'other');
    const foreign = await hook(bob, 'foreign');
    await send(alice, busy.id, 'tag.created');
    receiver.behaviour = 'fail';
    const newest = await send(alice, busy.id, 'tag.deleted');
    receiver.behaviour = 'ok';
    const otherOnly = await send(alice, other.id, 'tag.created');
    await send(bob, foreign.id, 'tag.created');

    const latest = await webhooks.latestDeliveries(t.services, actorOf(alice), { ids: [busy.id, quiet.id, other.id, foreign.id] });
    expect([...latest.keys()].sort()).toEqual([busy.id, other.id].sort());
    expect(latest.get(busy.id)).toMatchObject({ id: newest, event: 'tag.deleted', status: 'failed', response_code: 500 });
    expect(latest.get(other.id)).toMatchObject({ id: otherOnly, status: 'success' });
    expect(await webhooks.latestDeliveries(t.services, actorOf(alice), { ids: [] })).toEqual(new Map());
  });
});
