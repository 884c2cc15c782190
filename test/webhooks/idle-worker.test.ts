import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/features/webhooks/index.js';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv, firstDeliverySucceeded } from './support.js';

interface IdleLine {
  msg: string;
  wait_ms: number;
  woken: boolean;
}

/**
 * The delivery worker sleeps longer and longer while there is nothing to do (an idle server
 * used to run 40 polling transactions a second), and an event committed in its own process
 * wakes it at once rather than at its next poll. Its trace lines tell each wait and how it ended.
 */
describe('an idle delivery worker', () => {
  const t = useApp(async () => ({ env: await deliveryEnv() }));
  let receiver: Receiver;
  const lines: IdleLine[] = [];
  const idles = (from = 0) =>
    lines
      .slice(from)
      .filter((line) => line.msg === 'delivery worker idle')
      .map(({ wait_ms, woken }) => ({ wait_ms, woken }));

  beforeAll(async () => {
    receiver = await Receiver.start('ok');
  });
  afterAll(() => receiver.close());

  it('doubles its wait after each empty cycle up to a second, and an event committed here wakes it', async () => {
    const owner = await createAccount(t);
    const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
    const log = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line) as IdleLine) });
    const worker = new DeliveryWorker({ ...t.services, log });
    worker.start();
    try {
      await waitFor(async () => idles().filter((idle) => idle.wait_ms === 1000).length >= 2, 15_000, 'two waits of a second');
      expect(idles().slice(0, 8)).toEqual([25, 50, 100, 200, 400, 800, 1000, 1000].map((wait_ms) => ({ wait_ms, woken: false })));

      // A trace line ends each wait, and a short cycle follows before the next wait begins: the
      // commit comes once that next wait is under way, so that it is the wait the commit cuts.
      const waits = idles().length;
      await waitFor(async () => idles().length > waits, 5_000, 'the end of a wait');
      await sleep(200);
      const before = lines.length;
      await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'Wakes the worker' } });
      const delivered = await firstDeliverySucceeded(t, hook.id);
      expect(delivered.attempt).toBe(1);
      const after = await waitFor(async () => (idles(before).length >= 2 ? idles(before) : undefined), 10_000, 'the worker idle again');
      // The wait the commit cut short: without the wake it would have run its second out.
      expect(after[0]).toEqual({ wait_ms: 1000, woken: true });
      // After work, the waits start short again.
      expect(after[1]!.wait_ms).toBe(25);
    } finally {
      await worker.stop();
    }
    expect(receiver.received).toHaveLength(1);
  });
});
