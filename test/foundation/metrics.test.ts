import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, expectError, request, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { startWorker } from '../../src/worker.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createTag, UA, view } from '../analytics/support.js';
import { createWebhook, deliveryEnv, spawnedTrust, spawnTagsvc, type Spawned } from '../webhooks/support.js';

const TOKEN = 'metrics-token-0123456789abcdef';

function scrape(t: TestApp, token = TOKEN) {
  return request(t, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
}

/** The value of one series in Prometheus's text format, 0 when it is absent (a counter not yet counted). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    if ((match[2] ?? '').split(',').filter(Boolean).sort().join(',') === wanted) return Number(match[3]);
  }
  return 0;
}

async function scrapeText(t: TestApp): Promise<string> {
  const response = await scrape(t);
  expect(response.status, response.text.slice(0, 300)).toBe(200);
  return response.text;
}

describe('metrics without METRICS_TOKEN', () => {
  const t = useApp();

  it('/metrics does not exist, token or not, and nothing is counted', async () => {
    expectError(await request(t, 'GET', '/metrics'), 404, 'not_found');
    expectError(await scrape(t), 404, 'not_found');
    expect(t.services.metrics).toBeUndefined();
  });
});

describe('metrics with METRICS_TOKEN', () => {
  // No worker: the queues fill and stay put, and the test event is the only delivery attempt.
  const t = useApp(async () => ({ env: { ...(await deliveryEnv({ WEBHOOK_RETRY_SCHEDULE: '1h' })), METRICS_TOKEN: TOKEN } }));
  const alice = useAccount(t);
  const receivers: Receiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  it('refuses a scrape without the token or with another one (401)', async () => {
    expectError(await request(t, 'GET', '/metrics'), 401, 'unauthorized');
    expectError(await scrape(t, 'metrics-token-0123456789abcdeX'), 401, 'unauthorized');
    expectError(await request(t, 'GET', '/metrics', { headers: { authorization: TOKEN } }), 401, 'unauthorized');
  });

  it('answers the token with the text format: request, view, delivery, queue and process metrics', async () => {
    const response = await scrape(t);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'tagsvc_http_request_duration_seconds',
      'tagsvc_views_recorded_total',
      'tagsvc_link_clicks_recorded_total',
      'tagsvc_webhook_delivery_attempts_total',
      'tagsvc_queue_depth',
      'nodejs_eventloop_lag_seconds',
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
    ]) {
      expect(response.text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts requests by route pattern, method and status, never by the URL', async () => {
    const tag = await createTag(t, alice.key, { title: 'Counted' });
    const series = { route: '/v1/tags/:id', method: 'GET', status_code: '200' };
    const before = sample(await scrapeText(t), 'tagsvc_http_request_duration_seconds_count', series);
    expect((await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).status).toBe(200);
    expect((await request(t, 'GET', '/v1/tags/tag_unknown', { key: alice.key })).status).toBe(404);
    const text = await scrapeText(t);
    expect(sample(text, 'tagsvc_http_request_duration_seconds_count', series)).toBe(before + 1);
    expect(sample(text, 'tagsvc_http_request_duration_seconds_count', { ...series, status_code: '404' })).toBe(1);
    expect(sample(text, 'tagsvc_http_request_duration_seconds_bucket', { ...series, le: '+Inf' })).toBe(before + 1);
    expect(text).not.toContain(tag.id);
    expect(text).not.toContain('tag_unknown');
  });

  it('counts recorded views, and the views and events waiting in their queues', async () => {
    const tag = await createTag(t, alice.key, { title: 'Viewed' });
    const before = await scrapeText(t);
    await view(t, tag.short_id);
    await createTag(t, alice.key, { title: 'Another event' });
    const after = await scrapeText(t);
    expect(sample(after, 'tagsvc_views_recorded_total')).toBe(sample(before, 'tagsvc_views_recorded_total') + 1);
    // No worker rolls the view up or dispatches the tag's tag.created event.
    const queue = (text: string, name: string) => sample(text, 'tagsvc_queue_depth', { queue: name });
    expect(queue(after, 'views_rollup')).toBe(queue(before, 'views_rollup') + 1);
    expect(queue(after, 'webhook_events')).toBe(queue(before, 'webhook_events') + 1);
  });

  it('counts recorded link clicks, and not a bot’s', async () => {
    const tag = await createTag(t, alice.key, { title: 'Clicked', content: [{ type: 'link', url: 'https://example.com/' }] });
    const blockId = (tag as unknown as { content: Array<{ id: string }> }).content[0]!.id;
    const before = await scrapeText(t);
    for (const agent of [UA.iphone, UA.googlebot]) {
      const response = await request(t, 'GET', `/t/${tag.short_id}/l/${blockId}`, { headers: { 'user-agent': agent } });
      expect(response.status).toBe(302);
    }
    const after = await scrapeText(t);
    expect(sample(after, 'tagsvc_link_clicks_recorded_total')).toBe(sample(before, 'tagsvc_link_clicks_recorded_total') + 1);
  });

  it('counts delivery attempts by outcome, and deliveries waiting for an attempt', async () => {
    const ok = await Receiver.start('ok');
    const failing = await Receiver.start('fail');
    receivers.push(ok, failing);
    const outcome = (text: string, name: string) => sample(text, 'tagsvc_webhook_delivery_attempts_total', { outcome: name });
    const before = await scrapeText(t);
    const good = await createWebhook(t, alice.key, { url: ok.url, events: ['tag.deleted'] });
    const bad = await createWebhook(t, alice.key, { url: failing.url, events: ['tag.deleted'] });
    expect((await request(t, 'POST', `/v1/webhooks/${good.id}/test`, { key: alice.key })).body.data.status).toBe('success');
    expect((await request(t, 'POST', `/v1/webhooks/${bad.id}/test`, { key: alice.key })).body.data.status).toBe('failed');
    let after = await scrapeText(t);
    expect(outcome(after, 'success')).toBe(outcome(before, 'success') + 1);
    expect(outcome(after, 'failed')).toBe(outcome(before, 'failed') + 1);
    expect(ok.received).toHaveLength(1);

    // The worker's attempts count too: the failing receiver's delivery waits an hour for its retry.
    const tag = await createTag(t, alice.key, { title: 'Deleted' });
    expect((await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: alice.key })).status).toBe(200);
    const stopWorker = startWorker(t.services);
    try {
      after = await waitFor(
        async () => {
          const text = await scrapeText(t);
          return outcome(text, 'retry') === outcome(before, 'retry') + 1 && outcome(text, 'success') === outcome(before, 'success') + 2
            ? text
            : undefined;
        },
        10_000,
        "the worker's two attempts",
      );
    } finally {
      await stopWorker();
    }
    expect(sample(after, 'tagsvc_queue_depth', { queue: 'webhook_deliveries' })).toBe(1);
    expect(sample(after, 'tagsvc_queue_depth', { queue: 'webhook_events' })).toBe(0);
  });
});

describe('metrics of a separate `tagsvc worker` process', () => {
  const t = useApp(async () => ({ env: { ...(await deliveryEnv()), METRICS_TOKEN: TOKEN } }));
  let worker: Spawned;
  let workerUrl: string;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start('ok');
    worker = spawnTagsvc(['worker'], { ...t.env, ...(await spawnedTrust()), PORT: '0', LOG_LEVEL: 'info' });
    workerUrl = (await worker.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  });
  afterAll(async () => {
    await worker.stop('SIGTERM');
    await receiver.close();
  });

  it('serves its own /metrics on PORT, counting the deliveries it makes', async () => {
    const alice = await createAccount(t);
    await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
    await createTag(t, alice.key, { title: 'Delivered by the worker' });
    const text = await waitFor(
      async () => {
        const response = await request(t, 'GET', '/metrics', { baseUrl: workerUrl, headers: { authorization: `Bearer ${TOKEN}` } });
        expect(response.status).toBe(200);
        return sample(response.text, 'tagsvc_webhook_delivery_attempts_total', { outcome: 'success' }) === 1 ? response.text : undefined;
      },
      10_000,
      "the worker's delivery in its metrics",
    );
    expect(receiver.received).toHaveLength(1);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds ');
    expectError(await request(t, 'GET', '/metrics', { baseUrl: workerUrl }), 401, 'unauthorized');
    expectError(await request(t, 'GET', '/v1/me', { baseUrl: workerUrl, key: alice.key }), 404, 'not_found');
    // The web process made no attempt.
    expect(sample(await scrapeText(t), 'tagsvc_webhook_delivery_attempts_total', { outcome: 'success' })).toBe(0);
  });
});
