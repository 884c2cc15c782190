import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, expectError, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv, deliveryRows, eventRows } from './support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('retries and isolation between receivers (schedule 100ms,200ms; timeout 1s)', () => {
  const t = useApp(async () => ({ worker: true, env: await deliveryEnv() }));
  const receivers: Receiver[] = [];
  async function receiver(behaviour: 'ok' | 'fail' | 'hang' = 'ok'): Promise<Receiver> {
    const started = await Receiver.start(behaviour);
    receivers.push(started);
    return started;
  }
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  it('a failing receiver gets exactly 3 attempts, then the delivery is failed; a manual retry succeeds', async () => {
    const alice = await createAccount(t);
    const r = await receiver('fail');
    const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Flaky' } })).body.data;

    const failed = await waitFor(
      async () => {
        const list = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=failed`, { key: alice.key });
        return list.body.data.length === 1 ? list.body : undefined;
      },
      10_000,
      'the delivery to fail',
    );
    const [event] = await eventRows(t, [tag.id]);
    expect(failed.pagination).toEqual({ total: 1, limit: 20, offset: 0, has_more: false });
    const delivery = failed.data[0];
    expect(delivery).toEqual({
      id: expect.stringMatching(/^dlv_[0-9a-z]{26}$/),
      event: 'tag.created',
      status: 'failed',
      response_code: 500,
      response_time_ms: expect.any(Number),
      attempt: 3,
      delivered_at: expect.stringMatching(ISO),
      next_attempt_at: null,
      test: false,
      payload: JSON.parse(event!.payload),
      created_at: expect.stringMatching(ISO),
    });
    expect(r.received).toHaveLength(3);
    expect((await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=success`, { key: alice.key })).body.data).toEqual([]);
    expect((await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=pending`, { key: alice.key })).body.data).toEqual([]);

    const detail = (await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}`, { key: alice.key })).body.data;
    const { attempts, ...rest } = detail;
    expect(rest).toEqual(delivery);
    expect(attempts).toEqual(
      [1, 2, 3].map((attempt) => ({
        attempt,
        timestamp: expect.stringMatching(ISO),
        response_code: 500,
        response_time_ms: expect.any(Number),
        response_body: 'receiver exploded',
        error: null,
      })),
    );
    for (const a of attempts) expect(Number.isInteger(a.response_time_ms) && a.response_time_ms >= 0).toBe(true);
    expect(attempts[2].timestamp).toBe(delivery.delivered_at);
    // The waits follow the schedule: 100 ms then 200 ms, each within ±20 % jitter.
    const at = attempts.map((a: { timestamp: string }) => Date.parse(a.timestamp));
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(80);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(160);
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(80);
    expect(r.received[2]!.at - r.received[1]!.at).toBeGreaterThanOrEqual(160);

    // Every attempt carries the event id as webhook-id and verifies.
    for (const got of r.received) {
      expect(got.headers['webhook-id']).toBe(event!.id);
      expect(got.body).toBe(event!.payload);
      expect(new StandardWebhook(hook.secret).verify(got.body, got.headers)).toEqual(got.json);
    }
    const stats = (await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.stats;
    expect(stats).toEqual({ total_deliveries: 1, successful: 0, failed: 1, last_delivery_at: delivery.delivered_at });

    // Later, the receiver is fixed and the delivery retried by hand: one more attempt, freshly signed.
    t.clock.advance(5000);
    r.behaviour = 'ok';
    const retried = await request(t, 'POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`, { key: alice.key });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ id: delivery.id, status: 'success', attempt: 4, response_code: 200, next_attempt_at: null });
    expect(retried.body.data.attempts).toHaveLength(4);
    expect(retried.body.data.attempts.slice(0, 3)).toEqual(attempts);
    expect(retried.body.data.attempts[3]).toEqual({
      attempt: 4,
      timestamp: retried.body.data.delivered_at,
      response_code: 200,
      response_time_ms: expect.any(Number),
      response_body: 'thanks',
      error: null,
    });
    expect(r.received).toHaveLength(4);
    const [first, , , fourth] = r.received;
    expect(fourth!.headers['webhook-id']).toBe(event!.id);
    expect(Number(fourth!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(first!.headers['webhook-timestamp']) + 5);
    expect(fourth!.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature']);
    expect(new StandardWebhook(hook.secret).verify(fourth!.body, fourth!.headers)).toEqual(fourth!.json);

    expect((await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}`, { key: alice.key })).body.data).toEqual(
      retried.body.data,
    );
    expect((await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.stats).toEqual({
      total_deliveries: 1,
      successful: 1,
      failed: 0,
      last_delivery_at: retried.body.data.delivered_at,
    });

    // Only failed deliveries can be retried; unknown ones are 404.
    const again = await request(t, 'POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`, { key: alice.key });
    expectError(again, 400, 'invalid_request');
    expectError(
      await request(t, 'POST', `/v1/webhooks/${hook.id}/deliveries/dlv_01jzzzzzzzzzzzzzzzzzzzzzzz/retry`, { key: alice.key }),
      404,
      'not_found',
    );
    expect(r.received).toHaveLength(4);
  });

  it('a manual retry that fails again stays failed and is not retried automatically', async () => {
    const alice = await createAccount(t);
    const r = await receiver('fail');
    const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Still broken' } });
    const [failed] = await waitFor(async () => {
      const rows = await deliveryRows(t, hook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    const retried = await request(t, 'POST', `/v1/webhooks/${hook.id}/deliveries/${failed!.id}/retry`, { key: alice.key });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ status: 'failed', attempt: 4, response_code: 500, next_attempt_at: null });
    // Positive signal that the worker has had its chance: a second event settles.
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Second' } });
    await waitFor(async () => {
      const rows = await deliveryRows(t, hook.id);
      return rows.length === 2 && rows.every((row) => row.status === 'failed');
    });
    expect((await deliveryRows(t, hook.id)).map((row) => row.attempt)).toEqual([4, 3]);
    expect(r.received).toHaveLength(7);
  });

  it('two simultaneous manual retries of one failed delivery make one attempt', async () => {
    const alice = await createAccount(t);
    const r = await receiver('fail');
    const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Twice' } });
    const [failed] = await waitFor(async () => {
      const rows = await deliveryRows(t, hook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    r.behaviour = 'ok';
    const path = `/v1/webhooks/${hook.id}/deliveries/${failed!.id}/retry`;
    const responses = await Promise.all([request(t, 'POST', path, { key: alice.key }), request(t, 'POST', path, { key: alice.key })]);
    const ok = responses.filter((response) => response.status === 200);
    expect(ok).toHaveLength(1);
    expectError(
      responses.find((response) => response.status !== 200)!,
      400,
      'invalid_request',
    );
    expect(ok[0]!.body.data).toMatchObject({ status: 'success', attempt: 4 });
    const detail = (await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries/${failed!.id}`, { key: alice.key })).body.data;
    expect(detail.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(r.received).toHaveLength(4);
  });

  it('each automatic attempt is signed afresh under the same webhook-id', async () => {
    const alice = await createAccount(t);
    const r = await receiver('fail');
    const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Fresh' } });
    // Move the service's clock on between attempts so each gets a different Unix second.
    await waitFor(() => r.received.length === 1, 10_000, 'attempt 1');
    t.clock.advance(2000);
    await waitFor(() => r.received.length === 2, 10_000, 'attempt 2');
    t.clock.advance(2000);
    await waitFor(() => r.received.length === 3, 10_000, 'attempt 3');
    const ids = new Set(r.received.map((x) => x.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const stamps = r.received.map((x) => Number(x.headers['webhook-timestamp']));
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(2);
    expect(stamps[2]! - stamps[1]!).toBeGreaterThanOrEqual(2);
    expect(new Set(r.received.map((x) => x.headers['webhook-signature'])).size).toBe(3);
    for (const got of r.received) expect(new StandardWebhook(hook.secret).verify(got.body, got.headers)).toEqual(got.json);
  });

  it('a hanging receiver does not hold up another webhook (no head-of-line blocking)', async () => {
    const alice = await createAccount(t);
    const hanging = await receiver('hang');
    const healthy = await receiver('ok');
    const slow = await createWebhook(t, alice.key, { name: 'slow', url: hanging.url, events: ['tag.created'] });
    const fast = await createWebhook(t, alice.key, { name: 'fast', url: healthy.url, events: ['tag.created'] });
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Race' } })).body.data;
    const [event] = await eventRows(t, [tag.id]);

    await waitFor(() => healthy.received.length === 1, 10_000, 'the healthy receiver');
    // At this moment the slow webhook's attempt has not been recorded: it is still in flight.
    const [slowDelivery] = await deliveryRows(t, slow.id);
    expect(slowDelivery).toMatchObject({ event_id: event!.id, status: 'pending', attempt: 0 });
    const [fastDelivery] = await waitFor(async () => {
      const rows = await deliveryRows(t, fast.id);
      return rows[0]?.status === 'success' ? rows : undefined;
    });
    expect(fastDelivery).toMatchObject({ event_id: event!.id, attempt: 1, response_code: 200 });
    await waitFor(() => hanging.received.length >= 1, 10_000, 'the hanging receiver to be called');
    expect(hanging.received[0]!.headers['webhook-id']).toBe(event!.id);

    // After WEBHOOK_TIMEOUT the slow attempt is recorded as a timeout, without a status code.
    const timedOut = await waitFor(
      async () => {
        const detail = (await request(t, 'GET', `/v1/webhooks/${slow.id}/deliveries/${slowDelivery!.id}`, { key: alice.key })).body.data;
        return detail.attempts.length >= 1 ? detail : undefined;
      },
      10_000,
      'the slow attempt',
    );
    expect(timedOut.attempts[0]).toEqual({
      attempt: 1,
      timestamp: expect.stringMatching(ISO),
      response_code: null,
      response_time_ms: expect.any(Number),
      response_body: null,
      error: expect.stringMatching(/no answer within 1000 ms/),
    });
    expect(timedOut.attempts[0].response_time_ms).toBeGreaterThanOrEqual(950);
    expect(Date.parse(timedOut.attempts[0].timestamp)).toBeGreaterThan(Date.parse(fastDelivery!.delivered_at!));

    // Deleting the slow webhook while an attempt is in flight leaves the worker healthy.
    await waitFor(() => hanging.received.length >= 2, 10_000, 'the second slow attempt');
    expect((await request(t, 'DELETE', `/v1/webhooks/${slow.id}`, { key: alice.key })).status).toBe(200);
    expect(await deliveryRows(t, slow.id)).toEqual([]);
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'After' } });
    await waitFor(() => healthy.received.length === 2, 10_000, 'the next healthy delivery');
  });
});

describe('deleting a webhook stops its pending deliveries (schedule 1h)', () => {
  const t = useApp(async () => ({ worker: true, env: await deliveryEnv({ WEBHOOK_RETRY_SCHEDULE: '1h' }) }));
  let failing: Receiver;
  let healthy: Receiver;
  beforeAll(async () => {
    failing = await Receiver.start('fail');
    healthy = await Receiver.start('ok');
  });
  afterAll(async () => {
    await failing.close();
    await healthy.close();
  });

  it('removes the delivery and its attempts; nothing more is sent', async () => {
    const alice = await createAccount(t);
    const doomed = await createWebhook(t, alice.key, { url: failing.url, events: ['tag.created'] });
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Doomed' } });
    const [pending] = await waitFor(async () => {
      const rows = await deliveryRows(t, doomed.id);
      return rows[0]?.attempt === 1 ? rows : undefined;
    });
    expect(pending).toMatchObject({ status: 'pending', response_code: 500 });
    const wait = Date.parse(pending!.next_attempt_at!) - Date.parse(pending!.delivered_at!);
    expect(wait).toBeGreaterThanOrEqual(0.8 * 3_600_000);
    expect(wait).toBeLessThanOrEqual(1.2 * 3_600_000);
    const listed = await request(t, 'GET', `/v1/webhooks/${doomed.id}/deliveries?status=pending`, { key: alice.key });
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([pending!.id]);
    // Still pending (attempts remain): not retryable by hand.
    expectError(
      await request(t, 'POST', `/v1/webhooks/${doomed.id}/deliveries/${pending!.id}/retry`, { key: alice.key }),
      400,
      'invalid_request',
    );
    expect(failing.received).toHaveLength(1);

    expect((await request(t, 'DELETE', `/v1/webhooks/${doomed.id}`, { key: alice.key })).body).toEqual({
      success: true,
      message: 'Webhook deleted',
    });
    expect(await deliveryRows(t, doomed.id)).toEqual([]);
    expect(await t.database.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', pending!.id).execute()).toEqual([]);

    // Two hours later the retry would have been due. A new webhook's delivery going through
    // shows the worker has run past that point; the deleted one got nothing more.
    t.clock.advance(2 * 3_600_000);
    await createWebhook(t, alice.key, { url: healthy.url, events: ['tag.created'] });
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Later' } });
    await waitFor(() => healthy.received.length === 1, 10_000, 'the control delivery');
    expect(failing.received).toHaveLength(1);
  });
});
