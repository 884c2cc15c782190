import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { eventSamples } from '../../src/features/events/index.js';
import { createAccount, createKey, expectError, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor, type ReceivedRequest } from '../helpers/receiver.js';
import { view } from '../analytics/support.js';
import {
  createWebhook,
  deliveryEnv,
  deliveryRows,
  eventRows,
  expectUtf8Signature,
  receiverPool,
  uploadFile,
  waitDispatched,
} from './support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('webhook delivery (worker running)', () => {
  const t = useApp(async () => ({ worker: true, env: await deliveryEnv() }));
  const receivers = receiverPool();
  const receiver = () => receivers.start();
  afterAll(() => receivers.closeAll());

  /** Waits until every delivery of `webhookId` is finished and returns them. */
  async function settledDeliveries(webhookId: string, count: number) {
    return waitFor(
      async () => {
        const rows = await deliveryRows(t, webhookId);
        return rows.length === count && rows.every((row) => row.status !== 'pending') ? rows : undefined;
      },
      10_000,
      `${count} settled deliveries of ${webhookId}`,
    );
  }

  it('page views reach the webhooks that take tag.viewed and qr.scanned, through the rollup job', async () => {
    const alice = await createAccount(t);
    const views = await receiver();
    const scans = await receiver();
    const others = await receiver();
    const hookViews = await createWebhook(t, alice.key, { url: views.url, events: ['tag.viewed'] });
    const hookScans = await createWebhook(t, alice.key, { url: scans.url, events: ['qr.scanned'] });
    const hookOthers = await createWebhook(t, alice.key, { url: others.url, events: ['tag.updated'] });
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Seen' } })).body.data;

    await view(t, tag.short_id, { visitor: 'v1_0123456789abcdef' });
    await view(t, tag.short_id, { scan: true, visitor: 'v2_0123456789abcdef' });
    const viewed = await settledDeliveries(hookViews.id, 2);
    const scanned = await settledDeliveries(hookScans.id, 1);
    expect([...viewed, ...scanned].every((d) => d.status === 'success')).toBe(true);
    // Sent concurrently: in either order.
    expect(views.received.map((r) => [r.json.event, (r.json.data.view as { source: string }).source]).sort()).toEqual([
      ['tag.viewed', 'direct'],
      ['tag.viewed', 'qr_scan'],
    ]);
    expect(scans.received.map((r) => r.json.event)).toEqual(['qr.scanned']);
    expect(scans.received[0]!.json.data.tag).toEqual({ id: tag.id, short_id: tag.short_id, title: 'Seen' });
    expect(await deliveryRows(t, hookOthers.id)).toEqual([]);
    expect(others.received).toEqual([]);
  });

  it('every event kind reaches the webhooks subscribed to it and no other', async () => {
    const alice = await createAccount(t);
    const createdAndQr = await receiver();
    const updatedAndDeleted = await receiver();
    const hookA = await createWebhook(t, alice.key, { url: createdAndQr.url, events: ['tag.created', 'qr.generated'] });
    const hookB = await createWebhook(t, alice.key, { url: updatedAndDeleted.url, events: ['tag.updated', 'tag.deleted'] });

    const single = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Single', content: [{ type: 'divider' }] } }))
      .body.data;
    const batch = (
      await request(t, 'POST', '/v1/tags/batch', { key: alice.key, body: { tags: [{ title: 'B1' }, { title: 'B2' }, { title: 'B3' }] } })
    ).body.data.tags;
    const updated = await request(t, 'PUT', `/v1/tags/${single.id}`, { key: alice.key, body: { title: 'Single v2' } });
    expect(updated.status).toBe(200);
    expect((await request(t, 'GET', `/v1/tags/${batch[0].id}/qr?format=svg&size=128`, { key: alice.key })).status).toBe(200);
    expect((await request(t, 'DELETE', `/v1/tags/${batch[1].id}`, { key: alice.key })).status).toBe(200);
    const tagIds = [single.id, ...batch.map((tag: { id: string }) => tag.id)];

    const events = await waitDispatched(t, tagIds, 7);
    const byType = (type: string) => events.filter((e) => e.type === type).map((e) => e.id);
    expect(events.map((e) => e.type).sort()).toEqual([
      'qr.generated',
      'tag.created',
      'tag.created',
      'tag.created',
      'tag.created',
      'tag.deleted',
      'tag.updated',
    ]);

    const aDeliveries = await settledDeliveries(hookA.id, 5);
    const bDeliveries = await settledDeliveries(hookB.id, 2);
    expect(aDeliveries.every((d) => d.status === 'success' && d.attempt === 1 && d.response_code === 200)).toBe(true);
    expect(bDeliveries.every((d) => d.status === 'success' && d.attempt === 1 && d.response_code === 200)).toBe(true);

    const ids = (r: Receiver) => r.received.map((x) => x.headers['webhook-id']).sort();
    expect(ids(createdAndQr)).toEqual([...byType('tag.created'), ...byType('qr.generated')].sort());
    expect(ids(updatedAndDeleted)).toEqual([...byType('tag.updated'), ...byType('tag.deleted')].sort());

    // Each body is exactly the outbox payload: {id, event, created_at, data}.
    for (const received of [...createdAndQr.received, ...updatedAndDeleted.received]) {
      const row = events.find((e) => e.id === received.headers['webhook-id'])!;
      expect(received.body).toBe(row.payload);
      expect(Object.keys(received.json).sort()).toEqual(['created_at', 'data', 'event', 'id']);
      expect(received.json).toMatchObject({ id: row.id, event: row.type, created_at: row.created_at });
      expect(received.json.id).toMatch(/^evt_[0-9a-z]{26}$/);
      expect(received.json.created_at).toMatch(ISO);
    }

    const bodyOf = (r: Receiver, event: string, tagId: string) =>
      r.received.map((x) => x.json).find((json) => json.event === event && (json.data.tag as { id: string }).id === tagId)!;
    // tag.created carries the tag as GET /v1/tags/{id} returns it (for a tag never changed since),
    // but for the preview address, which only the API's answers carry.
    const withoutPreview = ({ preview_url: _preview, ...tag }: { preview_url: string }) => tag;
    for (const tag of [batch[0], batch[2]]) {
      const fetched = (await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).body.data;
      expect(bodyOf(createdAndQr, 'tag.created', tag.id).data).toEqual({ tag: withoutPreview(fetched) });
    }
    expect(bodyOf(createdAndQr, 'tag.created', single.id).data).toEqual({ tag: withoutPreview(single) });
    expect(bodyOf(updatedAndDeleted, 'tag.updated', single.id).data).toEqual({ tag: withoutPreview(updated.body.data) });
    expect(bodyOf(updatedAndDeleted, 'tag.deleted', batch[1].id).data).toEqual({
      tag: { id: batch[1].id, short_id: batch[1].short_id, title: 'B2' },
    });
    expect(bodyOf(createdAndQr, 'qr.generated', batch[0].id).data).toEqual({
      tag: { id: batch[0].id, short_id: batch[0].short_id, title: 'B1' },
      qr: { format: 'svg', size: 128, color: '000000', background: 'ffffff' },
    });
  });

  it('file.uploaded and file.deleted reach the webhooks subscribed to them', async () => {
    const alice = await createAccount(t);
    const filesReceiver = await receiver();
    const tagsReceiver = await receiver();
    const filesHook = await createWebhook(t, alice.key, { url: filesReceiver.url, events: ['file.uploaded', 'file.deleted'] });
    const tagsHook = await createWebhook(t, alice.key, { url: tagsReceiver.url, events: ['tag.created'] });
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'With a file' } })).body.data;
    const uploaded = await uploadFile(t, alice.key, tag.id, 'notes.txt', Buffer.from('hello webhooks\n'));
    expect(uploaded.status).toBe(201);
    const file = uploaded.body.data;
    expect((await request(t, 'DELETE', `/v1/files/${file.id}`, { key: alice.key })).status).toBe(200);

    const events = await waitDispatched(t, [tag.id], 3);
    expect(events.map((e) => e.type)).toEqual(['tag.created', 'file.uploaded', 'file.deleted']);
    await settledDeliveries(filesHook.id, 2);
    await settledDeliveries(tagsHook.id, 1);
    await waitFor(() => filesReceiver.received.length === 2 && tagsReceiver.received.length === 1, 10_000, 'the three deliveries');
    expect(filesReceiver.received.map((x) => x.body).sort()).toEqual([events[1]!.payload, events[2]!.payload].sort());
    expect(tagsReceiver.received.map((x) => x.body)).toEqual([events[0]!.payload]);
    const fileUploaded = filesReceiver.received.find((x) => x.json.event === 'file.uploaded')!.json;
    expect(fileUploaded.data.tag).toEqual({ id: tag.id, short_id: tag.short_id, title: 'With a file' });
    expect(fileUploaded.data.file).toEqual(file);
    expect(filesReceiver.received.find((x) => x.json.event === 'file.deleted')!.json.data).toEqual({ tag: fileUploaded.data.tag, file });
  });

  it('signs every delivery (standardwebhooks and svix verify it) and sends the fixed and custom headers', async () => {
    const alice = await createAccount(t);
    const r = await receiver();
    const hook = await createWebhook(t, alice.key, {
      url: r.url,
      events: ['tag.created'],
      headers: { 'X-Tenant': 'acme', Authorization: 'Bearer abc' },
    });
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Signed' } })).body.data;
    const got: ReceivedRequest = await waitFor(() => r.received[0], 10_000, 'the delivery');
    const [event] = await eventRows(t, [tag.id]);

    expect(got.headers['webhook-id']).toBe(event!.id);
    expect(got.json.id).toBe(event!.id);
    const timestamp = Number(got.headers['webhook-timestamp']);
    expect(got.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(10);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('tagsvc-webhooks/1.0');
    expect(got.headers['x-tenant']).toBe('acme');
    expect(got.headers.authorization).toBe('Bearer abc');
    expect(Number(got.headers['content-length'])).toBe(Buffer.byteLength(got.body));

    expect(new StandardWebhook(hook.secret).verify(got.body, got.headers)).toEqual(got.json);
    expect(new SvixWebhook(hook.secret).verify(got.body, got.headers)).toEqual(got.json);
    // The verifiers do reject: a wrong secret, a changed body, a changed id.
    const otherSecret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    expect(() => new StandardWebhook(otherSecret).verify(got.body, got.headers)).toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(got.body.replace('Signed', 'Forged'), got.headers)).toThrow();
    expect(() => new SvixWebhook(hook.secret).verify(got.body, { ...got.headers, 'webhook-id': 'evt_other' })).toThrow();
  });

  it('a plain (non-whsec) secret signs with its UTF-8 bytes', async () => {
    const alice = await createAccount(t);
    const r = await receiver();
    const secret = 'plain sécret 🔑 with spaces';
    await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'], secret });
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Plain' } });
    const got = await waitFor(() => r.received[0], 10_000, 'the delivery');
    expectUtf8Signature(secret, got);
    expect(() => expectUtf8Signature('plain secret', got)).toThrow();
  });

  it('a secret changed by PUT signs the next deliveries', async () => {
    const alice = await createAccount(t);
    const r = await receiver();
    const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
    const rotated = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: alice.key, body: { secret: rotated } });
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Rotated' } });
    const got = await waitFor(() => r.received[0], 10_000, 'the delivery');
    expect(new StandardWebhook(rotated).verify(got.body, got.headers)).toEqual(got.json);
    expect(() => new StandardWebhook(hook.secret).verify(got.body, got.headers)).toThrow();
  });

  it("another account's events, and events of the other environment, never arrive", async () => {
    const alice = await createAccount(t);
    const mallory = await createAccount(t);
    const aliceTestKey = (await createKey(t, alice.email, { test: true })).key;
    const liveReceiver = await receiver();
    const testReceiver = await receiver();
    const liveHook = await createWebhook(t, alice.key, { url: liveReceiver.url, events: ['tag.created'] });
    const testHook = await createWebhook(t, aliceTestKey, { url: testReceiver.url, events: ['tag.created'] });
    // An organization alice owns: its events belong to the organization, not to alice.
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme', ownerEmail: alice.email, plan: 'pro' });
    const orgKey = (await createKey(t, alice.email, { organizationId: org.id })).key;

    const malloryTag = (await request(t, 'POST', '/v1/tags', { key: mallory.key, body: { title: 'Not yours' } })).body.data;
    const orgTag = (await request(t, 'POST', '/v1/tags', { key: orgKey, body: { title: 'Organization' } })).body.data;
    const liveTag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Live' } })).body.data;
    const testTag = (await request(t, 'POST', '/v1/tags', { key: aliceTestKey, body: { title: 'Sandbox' } })).body.data;
    const events = await waitDispatched(t, [malloryTag.id, orgTag.id, liveTag.id, testTag.id], 4);

    const [liveDeliveries, testDeliveries] = await Promise.all([settledDeliveries(liveHook.id, 1), settledDeliveries(testHook.id, 1)]);
    const eventOf = (tagId: string) => events.find((e) => e.tag_id === tagId)!.id;
    expect(liveDeliveries.map((d) => d.event_id)).toEqual([eventOf(liveTag.id)]);
    expect(testDeliveries.map((d) => d.event_id)).toEqual([eventOf(testTag.id)]);
    await waitFor(() => liveReceiver.received.length === 1 && testReceiver.received.length === 1, 10_000, 'both deliveries');
    expect(liveReceiver.received.map((x) => x.headers['webhook-id'])).toEqual([eventOf(liveTag.id)]);
    expect(testReceiver.received.map((x) => x.headers['webhook-id'])).toEqual([eventOf(testTag.id)]);
    expect(testReceiver.received[0]!.json.data.tag).toMatchObject({ title: 'Sandbox' });
  });

  it('a disabled webhook receives nothing and its missed events are not queued for later', async () => {
    const alice = await createAccount(t);
    const r = await receiver();
    const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created', 'tag.updated'] });
    expect((await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: alice.key, body: { enabled: false } })).body.data.enabled).toBe(
      false,
    );

    const missed = (
      await request(t, 'POST', '/v1/tags/batch', { key: alice.key, body: { tags: [{ title: 'm1' }, { title: 'm2' }, { title: 'm3' }] } })
    ).body.data.tags;
    const missedIds = missed.map((tag: { id: string }) => tag.id);
    await request(t, 'PUT', `/v1/tags/${missedIds[0]}`, { key: alice.key, body: { title: 'm1 again' } });
    const missedEvents = await waitDispatched(t, missedIds, 4);
    expect(await deliveryRows(t, hook.id)).toEqual([]);
    expect(r.received).toEqual([]);

    expect((await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: alice.key, body: { enabled: true } })).body.data.enabled).toBe(true);
    const fresh = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'after' } })).body.data;
    const [freshEvent] = await waitDispatched(t, [fresh.id], 1);
    const [delivery] = await settledDeliveries(hook.id, 1);
    expect(delivery).toMatchObject({ event_id: freshEvent!.id, status: 'success', attempt: 1 });
    await waitFor(() => r.received.length >= 1, 10_000, 'the new delivery');
    expect(r.received.map((x) => x.headers['webhook-id'])).toEqual([freshEvent!.id]);
    expect(missedEvents.some((e) => e.id === freshEvent!.id)).toBe(false);
    const listed = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries`, { key: alice.key });
    expect(listed.body.pagination.total).toBe(1);
  });

  describe('POST /v1/webhooks/{id}/test', () => {
    it('sends a signed tag.created test event by default and records it as a test delivery', async () => {
      const alice = await createAccount(t);
      const r = await receiver();
      const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.deleted'] });
      const before = t.clock.now().getTime();
      const response = await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        data: {
          delivery_id: expect.stringMatching(/^dlv_[0-9a-z]{26}$/),
          status: 'success',
          response_code: 200,
          response_time_ms: expect.any(Number),
        },
      });
      expect(response.body.data.response_time_ms).toBeGreaterThanOrEqual(0);
      expect(response.body.data.response_time_ms).toBeLessThan(5000);

      expect(r.received).toHaveLength(1);
      const got = r.received[0]!;
      expect(Object.keys(got.json).sort()).toEqual(['created_at', 'data', 'event', 'id', 'test']);
      expect(got.json).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
        event: 'tag.created',
        created_at: expect.stringMatching(ISO),
        test: true,
        data: eventSamples(t.config.publicBaseUrl)['tag.created'],
      });
      expect(Date.parse(got.json.created_at)).toBeGreaterThanOrEqual(before);
      expect(got.headers['webhook-id']).toBe(got.json.id);
      expect(new StandardWebhook(hook.secret).verify(got.body, got.headers)).toEqual(got.json);
      expect(got.headers['user-agent']).toBe('tagsvc-webhooks/1.0');

      const listed = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries`, { key: alice.key });
      expect(listed.body.data).toEqual([
        expect.objectContaining({
          id: response.body.data.delivery_id,
          event: 'tag.created',
          status: 'success',
          test: true,
          attempt: 1,
          response_code: 200,
        }),
      ]);
      expect(listed.body.data[0].payload).toEqual(got.json);
    });

    it('sends the event asked for; an unknown event is a validation error', async () => {
      const alice = await createAccount(t);
      const r = await receiver();
      const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
      const response = await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key, body: { event: 'qr.scanned' } });
      expect(response.body.data).toMatchObject({ status: 'success', response_code: 200 });
      expect(r.received).toHaveLength(1);
      expect(r.received[0]!.json).toMatchObject({ event: 'qr.scanned', test: true });
      expect(new SvixWebhook(hook.secret).verify(r.received[0]!.body, r.received[0]!.headers)).toEqual(r.received[0]!.json);

      expectError(
        await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key, body: { event: 'nope' } }),
        400,
        'validation_error',
        'event',
      );
      expectError(
        await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key, body: { event: 'tag.created', extra: 1 } }),
        400,
        'validation_error',
        'extra',
      );
      expect(r.received).toHaveLength(1);
    });

    it('reports a failing receiver as failed with its status code, without retrying it', async () => {
      const alice = await createAccount(t);
      const r = await receiver();
      r.behaviour = 'fail';
      const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
      const response = await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ status: 'failed', response_code: 500 });
      const detail = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries/${response.body.data.delivery_id}`, { key: alice.key });
      expect(detail.body.data).toMatchObject({ status: 'failed', test: true, attempt: 1, next_attempt_at: null, response_code: 500 });
      expect(detail.body.data.attempts).toEqual([
        {
          attempt: 1,
          timestamp: expect.stringMatching(ISO),
          response_code: 500,
          response_time_ms: expect.any(Number),
          response_body: 'receiver exploded',
          error: null,
        },
      ]);
      const failed = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=failed`, { key: alice.key });
      expect(failed.body.data.map((d: { id: string }) => d.id)).toEqual([response.body.data.delivery_id]);
      expect(failed.body.data[0].test).toBe(true);
      // A positive signal that the worker has run since: a real event is delivered (and fails).
      await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'real' } });
      await settledDeliveries(hook.id, 2);
      expect(r.received.filter((x) => x.json.test === true)).toHaveLength(1);
    });
  });
});
