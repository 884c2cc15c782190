import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, expectError, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv, deliveryRows } from './support.js';

/**
 * Custom header values follow RFC 9110 (visible ASCII, inner spaces and tabs); a value Node
 * cannot send, stored before that rule, makes a failed attempt that follows the retry
 * schedule instead of a delivery that stays leased and pending.
 */
describe('webhook custom header values (schedule 100ms,200ms)', () => {
  const t = useApp(async () => ({ worker: true, env: await deliveryEnv() }));
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start('ok');
  });
  afterAll(() => receiver.close());

  const bad: Array<[string, string]> = [
    ['a control character', 'a\u0001b'],
    ['a line break', 'a\r\nX-Injected: 1'],
    ['DEL', 'a\u007fb'],
    ['U+2028', 'a\u2028b'],
    ['an emoji', 'ok 🎉'],
    ['obs-text (Latin-1)', 'caf\u00e9'],
    ['a leading space', ' value'],
    ['a trailing tab', 'value\t'],
  ];

  it.each(bad)('refuses a value with %s at creation and at update, naming the header', async (_what, value) => {
    const owner = await createAccount(t);
    const body = { name: 'n', url: receiver.url, events: ['tag.created'], headers: { 'X-Foo': value } };
    expectError(await request(t, 'POST', '/v1/webhooks', { key: owner.key, body }), 400, 'validation_error', 'headers.X-Foo');
    const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
    const update = await request(t, 'PUT', `/v1/webhooks/${hook.id}`, { key: owner.key, body: { headers: { 'X-Foo': value } } });
    expectError(update, 400, 'validation_error', 'headers.X-Foo');
  });

  it('accepts visible ASCII with inner spaces and tabs, and an empty value', async () => {
    const owner = await createAccount(t);
    const headers = { 'X-Tenant': 'acme corp\tv1 !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', 'X-Empty': '' };
    const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'], headers });
    expect(hook.headers).toEqual(headers);
    const sent = await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key, body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body.data.status).toBe('success');
    const received = receiver.received.find((r) => r.headers['webhook-id'] === JSON.parse(r.body).id && r.headers['x-tenant']);
    expect(received?.headers['x-tenant']).toBe(headers['X-Tenant']);
  });

  it('a stored value Node refuses: the test endpoint answers 200 failed, a real delivery fails after its attempts', async () => {
    const owner = await createAccount(t);
    const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'] });
    // As an older version, which checked only line breaks, would have stored it.
    await t.database.db
      .updateTable('webhooks')
      .set({ headers: JSON.stringify({ 'X-Foo': 'party 🎉' }) })
      .where('id', '=', hook.id)
      .execute();
    const before = receiver.received.length;

    const test = await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key, body: {} });
    expect(test.status).toBe(200);
    expect(test.body.data).toMatchObject({ status: 'failed', response_code: null });

    await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'Header trouble' } });
    const failed = await waitFor(
      async () => {
        const rows = (await deliveryRows(t, hook.id)).filter((row) => row.test === 0);
        return rows.length === 1 && rows[0]!.status === 'failed' ? rows[0] : undefined;
      },
      10_000,
      'the real delivery to fail',
    );
    expect(failed).toMatchObject({ attempt: 3, claimed_until: null, next_attempt_at: null, response_code: null });
    const detail = await request(t, 'GET', `/v1/webhooks/${hook.id}/deliveries/${failed.id}`, { key: owner.key });
    expect(detail.body.data.attempts).toHaveLength(3);
    for (const attempt of detail.body.data.attempts) {
      expect(attempt).toMatchObject({ response_code: null });
      expect(attempt.error).toMatch(/^could not send: .*X-Foo/);
    }
    expect(receiver.received.length).toBe(before);
  });
});
