import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/features/webhooks/index.js';
import { createServices, type Services } from '../../src/services.js';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv, deliveryRows, firstDeliverySucceeded } from './support.js';

/**
 * A worker whose cap store (Redis) is unreachable must not keep what it leased: the deliveries
 * go straight back to the queue for a worker that can count them. The clock is frozen, so a
 * lease left behind would never run out and the delivery would never arrive.
 */
describe('a worker that cannot reach Redis for the per-webhook cap', () => {
  const t = useApp(async () => ({ env: await deliveryEnv() }));
  let broken: Services;
  let receiver: Receiver;
  const errors: string[] = [];
  beforeAll(async () => {
    t.clock.freeze();
    const log = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
    broken = await createServices({ ...t.config, redisUrl: 'redis://127.0.0.1:1' }, { clock: t.clock, log });
    receiver = await Receiver.start('ok');
  });
  afterAll(async () => {
    await broken.close();
    await receiver.close();
  });

  it('releases the leases it took, and a healthy worker delivers at once', async () => {
    const owner = await createAccount(t);
    const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
    await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'While Redis is down' } });

    const stranded = new DeliveryWorker(broken);
    stranded.start();
    await waitFor(
      async () => errors.some((line) => line.includes('delivery worker cycle failed')) && (await deliveryRows(t, hook.id)).length === 1,
      10_000,
      'the worker without Redis to claim the delivery and fail',
    );
    await stranded.stop();
    const [row] = await deliveryRows(t, hook.id);
    expect(row).toMatchObject({ status: 'pending', attempt: 0, claimed_until: null });

    const healthy = new DeliveryWorker(t.services);
    healthy.start();
    try {
      const delivered = await firstDeliverySucceeded(t, hook.id);
      expect(delivered.attempt).toBe(1);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await healthy.stop();
    }
  });
});
