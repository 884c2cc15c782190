import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as webhooks from '../../src/features/webhooks/index.js';
import { createAccount, request, startTestApp, type Account, type TestApp, actorOf } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { Receiver, waitFor, type ReceivedRequest } from '../helpers/receiver.js';
import { deliveryEnv } from '../webhooks/support.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole, type CookieJar } from './support.js';

/**
 * The Webhooks pages: a webhook's whole life from the browser against a real HTTPS receiver
 * and the real delivery worker; the form's errors; no-script fallbacks; isolation.
 */
describe('dashboard webhooks', () => {
  const holder = useBrowser();
  const t = useApp(async () => ({ env: await deliveryEnv(), worker: true }));
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver?.close());

  const webhooksOf = async (account: Account) =>
    (await webhooks.listWebhooks(t.services, actorOf(account), { limit: 100, offset: 0 })).webhooks;
  const deliveriesOf = async (account: Account, id: string) =>
    (await webhooks.listDeliveries(t.services, actorOf(account), { id, limit: 100, offset: 0 })).deliveries;

  /** The receiver's request is signed with the webhook's secret (Standard Webhooks). */
  const expectSigned = (got: ReceivedRequest, secret: string) =>
    expect(new StandardWebhook(secret).verify(got.body, got.headers)).toEqual(got.json);

  const deliveryRow = (page: Page, event: string) =>
    page
      .locator('#deliveries')
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader').filter({ hasText: event }) });

  it('creates a webhook with checkboxes, shows its secret, sends test events, logs, retries and deletes', async () => {
    const { page } = await newPage(holder.browser, { permissions: ['clipboard-read', 'clipboard-write'] });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/webhooks`);
    await expect(page.getByText('No webhooks yet').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'webhooks-empty');

    await page.getByRole('link', { name: 'New Webhook' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/webhooks/new`);
    // A form with problems comes back with each one under its field, as typed.
    await page.getByLabel('Name', { exact: true }).fill('Deploy notifier');
    await page.getByLabel('URL').fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Create Webhook' }).click();
    await page.locator('.field-error', { hasText: 'Choose at least one event.' }).waitFor();
    await page.getByLabel('tag.created', { exact: true }).check();
    await page.getByRole('button', { name: 'Create Webhook' }).click();
    await page
      .locator('.field-error', { hasText: 'URL must be an https:// URL (http:// only for a receiver on a loopback or private address).' })
      .waitFor();
    await expect(page.getByLabel('tag.created', { exact: true }).isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Deploy notifier');
    await expectAccessible(page);
    await screenshots(page, 'webhooks-new-errors');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('file.uploaded', { exact: true }).check();
    // Two header rows added on the page; the second removed again.
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header name').fill('X-Team');
    await page.getByLabel('Header value').fill('blue');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header name').nth(1).fill('X-Gone');
    await expectAccessible(page);
    await screenshots(page, 'webhooks-new');
    await page.getByRole('button', { name: 'Remove' }).nth(1).click();
    await expect(page.getByLabel('Header name').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Create Webhook' }).click();
    await page.waitForURL(/\/dashboard\/webhooks\/wh_[^/?]+\?done=created$/);

    const [stored] = await webhooksOf(alice);
    expect(stored).toMatchObject({
      name: 'Deploy notifier',
      url: receiver.url,
      events: ['tag.created', 'file.uploaded'],
      headers: { 'X-Team': 'blue' },
      enabled: true,
    });
    const path = `/dashboard/webhooks/${stored!.id}`;
    expect(page.url()).toBe(`${t.baseUrl}${path}?done=created`);

    // The secret: masked until Reveal, then the webhook's own; Copy puts it on the clipboard.
    const secret = page.locator('#webhook-secret');
    await expect(secret.isVisible()).resolves.toBe(false);
    await expect(page.getByText('whsec_••••').isVisible()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Reveal' }).click();
    await expect(secret.isVisible()).resolves.toBe(true);
    expect((await secret.textContent())!.trim()).toBe(stored!.secret);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(stored!.secret);
    await page.getByRole('button', { name: 'Hide' }).click();
    await expect(secret.isVisible()).resolves.toBe(false);

    // A test event reaches the receiver, signed, with the custom header; the page says so.
    await page.getByLabel('Event', { exact: true }).selectOption('tag.created');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL(/\?tested=dlv_/);
    await expect(page.locator('.test-result').textContent()).resolves.toMatch(/Test event delivered\.\s*tag\.created: HTTP 200/);
    expect(receiver.received).toHaveLength(1);
    const test = receiver.received[0]!;
    expectSigned(test, stored!.secret);
    expect(test.json).toMatchObject({ event: 'tag.created', test: true });
    expect(test.headers['x-team']).toBe('blue');
    await expect(deliveryRow(page, 'tag.created').getByText('Succeeded').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'webhook');

    // Its delivery page: the payload as sent, pretty and escaped, and the attempt.
    await page.getByRole('link', { name: 'See the delivery' }).click();
    await page.waitForURL(/\/deliveries\/dlv_/);
    const payload = JSON.parse((await page.locator('#delivery-payload').textContent())!);
    expect(payload).toEqual(test.json);
    expect(await page.locator('#delivery-payload').textContent()).toContain('\n  "event": "tag.created"');
    await expect(page.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
    await expect(page.locator('.excerpt').textContent()).resolves.toBe('thanks');
    await expectAccessible(page);

    // A failing receiver: the test event's result says so.
    receiver.behaviour = 'fail';
    await page.goto(`${t.baseUrl}${path}`);
    await page.getByLabel('Event', { exact: true }).selectOption('file.uploaded');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL(/\?tested=dlv_/);
    await expect(page.locator('.test-result').textContent()).resolves.toMatch(/Test event not delivered\.\s*file\.uploaded: HTTP 500/);

    // A real event through the real worker: every automatic attempt fails, then Retry succeeds.
    const title = 'Launch </code><script>alert(1)</script>';
    const created = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title } });
    expect(created.status).toBe(201);
    const failed = await waitFor(
      async () => (await deliveriesOf(alice, stored!.id)).find((d) => !d.test && d.status === 'failed'),
      15_000,
      'the tag.created delivery to fail',
    );
    expect(failed.attempt).toBe(3);
    await page.goto(`${t.baseUrl}${path}`);
    await page.getByRole('link', { name: 'Failed', exact: true }).click();
    await page.waitForURL(`${t.baseUrl}${path}?status=failed#deliveries`);
    await expect(page.locator('#deliveries tbody tr').count()).resolves.toBe(2);
    const realRow = deliveryRow(page, 'tag.created');
    await expect(realRow.getByText('Failed').isVisible()).resolves.toBe(true);
    await expect(realRow.locator('td[data-label="Response"]').textContent()).resolves.toBe('500');
    await expect(realRow.locator('td[data-label="Attempts"]').textContent()).resolves.toBe('3');
    await page.getByRole('link', { name: 'Succeeded' }).click();
    await page.waitForURL(`${t.baseUrl}${path}?status=success#deliveries`);
    await expect(page.locator('#deliveries tbody tr').count()).resolves.toBe(1);

    await page.goto(`${t.baseUrl}${path}/deliveries/${failed.id}`);
    await expect(page.getByText('receiver exploded').first().isVisible()).resolves.toBe(true);
    // The payload is text on the page, escaped: the title's markup is not markup.
    expect(JSON.parse((await page.locator('#delivery-payload').textContent())!).data.tag.title).toBe(title);
    await expect(page.locator('main script').count()).resolves.toBe(0);
    await expect(page.locator('#attempts-heading + .table-wrap tbody tr').count()).resolves.toBe(3);
    await screenshots(page, 'webhook-delivery-failed');
    receiver.behaviour = 'ok';
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL(`${t.baseUrl}${path}/deliveries/${failed.id}?done=retried`);
    await expect(page.locator('.facts').getByText('Succeeded').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
    const retried = receiver.received[before]!;
    expect(retried.json).toMatchObject({ event: 'tag.created', data: { tag: { id: created.body.data.id, title } } });
    expectSigned(retried, stored!.secret);
    expect(receiver.received).toHaveLength(before + 1);
    await expectAccessible(page);
    await screenshots(page, 'webhook-delivery');

    // The list: name, URL, events, state and the latest delivery.
    await page.goto(`${t.baseUrl}/dashboard/webhooks`);
    const listRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Deploy notifier' }) });
    await expect(listRow.locator('td[data-label="Events"]').textContent()).resolves.toBe('2 events');
    await expect(listRow.getByText('Enabled').isVisible()).resolves.toBe(true);
    await expect(listRow.getByText(receiver.url).isVisible()).resolves.toBe(true);
    await expect(listRow.locator('td[data-label="Last delivery"] .status').textContent()).resolves.toBe('Succeeded');
    await expectAccessible(page);
    await screenshots(page, 'webhooks');

    // Edit with the same form, then disable and delete.
    await listRow.getByRole('link', { name: 'Deploy notifier' }).click();
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.waitForURL(`${t.baseUrl}${path}/edit`);
    await expect(page.getByLabel('tag.created', { exact: true }).isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Header value').inputValue()).resolves.toBe('blue');
    await page.getByLabel('file.uploaded', { exact: true }).uncheck();
    await page.getByLabel('qr.scanned', { exact: true }).check();
    await page.getByLabel('Name', { exact: true }).fill('Renamed notifier');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${t.baseUrl}${path}?done=updated`);
    expect((await webhooksOf(alice))[0]).toMatchObject({ name: 'Renamed notifier', events: ['tag.created', 'qr.scanned'] });

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.waitForURL(`${t.baseUrl}${path}?done=disabled`);
    await expect(page.locator('h1 .state').textContent()).resolves.toBe('Disabled');
    expect((await webhooksOf(alice))[0]!.enabled).toBe(false);

    const questions: string[] = [];
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/webhooks?done=deleted`);
    expect(questions).toEqual(['Delete “Renamed notifier”? Its delivery log goes with it; pending deliveries are not sent.']);
    expect(await webhooksOf(alice)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('answers a bad form with per-field errors (400) and writes nothing', async () => {
    const carol = await createAccount(t, 'pro');
    const jar = await signInHttp(t, carol.email);
    const submit = async (fields: Record<string, string>, headers: Array<[string, string]> = []) => {
      const form = await get(t, '/dashboard/webhooks/new', jar);
      const body = new URLSearchParams({ _csrf: csrfOf(form), ...fields });
      for (const [name, value] of headers) {
        body.append('header_name', name);
        body.append('header_value', value);
      }
      return postRaw(t, '/dashboard/webhooks', jar, body);
    };
    const valid = { name: 'Hook', url: receiver.url, events: 'tag.created', enabled: 'on' };
    const errorOf = (html: string, id: string) => new RegExp(`id="${id}-error">([^<]*)<`).exec(html)?.[1];

    const noEvents = await submit({ name: 'Hook', url: receiver.url });
    expect(noEvents.status).toBe(400);
    expect(errorOf(noEvents.text, 'field-events')).toBe('Choose at least one event.');
    expect(noEvents.text).toContain(`value="${receiver.url}"`);

    const plainHttp = await submit({ ...valid, url: 'http://example.com/hook' });
    expect(plainHttp.status).toBe(400);
    expect(errorOf(plainHttp.text, 'field-url')).toBe(
      'URL must be an https:// URL (http:// only for a receiver on a loopback or private address).',
    );

    const noName = await submit({ ...valid, name: '  ' });
    expect(errorOf(noName.text, 'field-name')).toBe('Name must not be empty.');

    const badName = await submit(valid, [
      ['X-Ok', 'fine'],
      ['Bad Header', 'x'],
    ]);
    expect(badName.status).toBe(400);
    expect(errorOf(badName.text, 'header-1')).toBe('Bad Header is not a valid header name.');
    const signature = await submit(valid, [['webhook-signature', 'v1,forged']]);
    expect(errorOf(signature.text, 'header-0')).toBe('Webhook-signature is set by the service and cannot be replaced.');
    const badValue = await submit(valid, [['X-Token', ' padded']]);
    expect(errorOf(badValue.text, 'header-0')).toBe('Value must not start or end with a space or tab.');
    const twice = await submit(valid, [
      ['X-Token', 'a'],
      ['x-token', 'b'],
    ]);
    expect(errorOf(twice.text, 'header-1')).toBe('x-token is given twice; keep one.');
    const nameless = await submit(valid, [['', 'value only']]);
    expect(errorOf(nameless.text, 'header-0')).toBe('Enter the header’s name.');
    expect(await webhooksOf(carol)).toEqual([]);

    // The plan's limit (Pro: 5) is the whole form's error.
    for (let i = 0; i < 5; i++) {
      await webhooks.createWebhook(t.services, actorOf(carol), { name: `hook ${i}`, url: receiver.url, events: ['tag.created'] });
    }
    const sixth = await submit(valid);
    expect(sixth.status).toBe(400);
    expect(sixth.text).toContain('The pro plan allows 5 webhooks; delete one or upgrade to Enterprise.');
    expect(await webhooksOf(carol)).toHaveLength(5);
    const list = await get(t, '/dashboard/webhooks', jar);
    expect(list.text).toContain('5 of 5 on your plan');
    expect(list.text).toContain('Every webhook of your plan is in use');
  });

  it('refuses a private address when private networks are not allowed', async () => {
    const strict = await startTestApp();
    try {
      const dave = await createAccount(strict, 'pro');
      const jar = await signInHttp(strict, dave.email);
      const form = await get(strict, '/dashboard/webhooks/new', jar);
      const response = await post(strict, '/dashboard/webhooks', jar, {
        _csrf: csrfOf(form),
        name: 'Internal',
        url: 'https://127.0.0.1:8443/hook',
        events: 'tag.created',
      });
      expect(response.status).toBe(400);
      // The message says how a developer allows a receiver on their own machine.
      expect(response.text).toContain(
        'id="field-url-error">URL is not publicly reachable: the host 127.0.0.1 resolves to a private or reserved address; to allow private networks in development, start the server with ALLOW_PRIVATE_NETWORKS=true.<',
      );
    } finally {
      await strict.close();
    }
  });

  it('works without scripts: header rows, Reveal and Delete answer from the server', async () => {
    const jar = await signInHttp(t, alice.email);
    const form = await get(t, '/dashboard/webhooks/new', jar);
    const csrf = csrfOf(form);
    const fields = new URLSearchParams({
      _csrf: csrf,
      name: 'Plain',
      url: receiver.url,
      events: 'tag.deleted',
      enabled: 'on',
      intent: 'add-header',
    });
    const added = await postRaw(t, '/dashboard/webhooks', jar, fields);
    expect(added.status).toBe(200);
    expect(headerRows(added.text)).toEqual(['']);
    expect(added.text).toContain('value="Plain"');
    expect(await webhooksOf(alice)).toEqual([]);

    fields.delete('intent');
    fields.append('header_name', 'X-A');
    fields.append('header_value', '1');
    fields.append('header_name', 'X-B');
    fields.append('header_value', '2');
    fields.set('intent', 'remove-header-0');
    const removed = await postRaw(t, '/dashboard/webhooks', jar, fields);
    expect(headerRows(removed.text)).toEqual(['X-B']);

    fields.delete('intent');
    const created = await postRaw(t, '/dashboard/webhooks', jar, fields);
    expect(created.status).toBe(303);
    const [hook] = await webhooksOf(alice);
    expect(hook).toMatchObject({ name: 'Plain', events: ['tag.deleted'], headers: { 'X-A': '1', 'X-B': '2' } });
    expect(created.headers.get('location')).toBe(`/dashboard/webhooks/${hook!.id}?done=created`);

    const masked = await get(t, `/dashboard/webhooks/${hook!.id}`, jar);
    expect(masked.text).toMatch(/<code id="webhook-secret" hidden>/);
    const shown = await get(t, `/dashboard/webhooks/${hook!.id}?secret=shown`, jar);
    expect(shown.text).toMatch(/<code id="webhook-secret">\s*whsec_/);
    expect(shown.headers.get('cache-control')).toBe('no-store');

    const ask = await post(t, `/dashboard/webhooks/${hook!.id}/delete`, jar, { _csrf: csrf, confirmed: '' });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Delete “Plain”?');
    expect(await webhooksOf(alice)).toHaveLength(1);
    const deleted = await post(t, `/dashboard/webhooks/${hook!.id}/delete`, jar, { _csrf: csrf, confirmed: 'yes' });
    expect(deleted.headers.get('location')).toBe('/dashboard/webhooks?done=deleted');
    expect(await webhooksOf(alice)).toEqual([]);
  });

  it('pages the delivery log, keeping its filter, and refuses to retry a delivery that did not fail', async () => {
    const erin = await createAccount(t, 'pro');
    const hook = await webhooks.createWebhook(t.services, actorOf(erin), { name: 'Busy', url: receiver.url, events: ['tag.created'] });
    let last = '';
    for (let i = 0; i < 26; i++) {
      last = (await webhooks.sendTestEvent(t.services, actorOf(erin), { webhookId: hook.id, event: 'tag.updated' })).delivery_id;
    }
    const jar = await signInHttp(t, erin.email);
    const base = `/dashboard/webhooks/${hook.id}`;
    const rows = (html: string) => html.match(/<tr><th scope="row" data-label="Event">/g)?.length ?? 0;
    const first = await get(t, `${base}?status=success`, jar);
    expect(rows(first.text)).toBe(25);
    expect(first.text).toContain('1–25 of 26');
    expect(first.text).toContain(`href="${base}?status=success&amp;page=2" rel="next"`);
    const second = await get(t, `${base}?status=success&page=2`, jar);
    expect(rows(second.text)).toBe(1);
    expect(second.text).toContain('26–26 of 26');
    expect(second.text).toContain(`href="${base}?status=success&amp;page=1" rel="prev"`);
    const failedOnly = await get(t, `${base}?status=failed`, jar);
    expect(rows(failedOnly.text)).toBe(0);
    expect(failedOnly.text).toContain('No deliveries with this status.');

    const refused = await post(t, `${base}/deliveries/${last}/retry`, jar, { _csrf: csrfOf(first) });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Only failed deliveries can be retried; this one is success.');
    expect((await webhooks.getDelivery(t.services, actorOf(erin), { webhookId: hook.id, deliveryId: last })).attempt).toBe(1);
  });

  it('Rotate secret asks first, then signs the next delivery with a new secret', async () => {
    const frank = await createAccount(t, 'pro');
    const hook = await webhooks.createWebhook(t.services, actorOf(frank), { name: 'Rotating', url: receiver.url, events: ['tag.created'] });
    const jar = await signInHttp(t, frank.email);
    const base = `/dashboard/webhooks/${hook.id}`;
    const csrf = csrfOf(await get(t, base, jar));

    const ask = await post(t, `${base}/secret`, jar, { _csrf: csrf });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Rotate the secret of “Rotating”?');
    expect((await webhooks.getWebhook(t.services, actorOf(frank), { id: hook.id })).secret).toBe(hook.secret);

    const rotated = await post(t, `${base}/secret`, jar, { _csrf: csrf, confirmed: 'yes' });
    expect(rotated.status).toBe(303);
    expect(rotated.headers.get('location')).toBe(`${base}?done=rotated&secret=shown`);
    const { secret } = await webhooks.getWebhook(t.services, actorOf(frank), { id: hook.id });
    expect(secret).not.toBe(hook.secret);
    expect(secret).toMatch(/^whsec_/);
    expect((await get(t, `${base}?done=rotated&secret=shown`, jar)).text).toContain(secret);

    const before = receiver.received.length;
    await webhooks.sendTestEvent(t.services, actorOf(frank), { webhookId: hook.id, event: 'tag.created' });
    const delivered = receiver.received[before]!;
    expect(() => new StandardWebhook(secret).verify(delivered.body, delivered.headers)).not.toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(delivered.body, delivered.headers)).toThrow();
  });

  it("answers 404 for another user's webhook and deliveries, and changes nothing", async () => {
    const hook = await webhooks.createWebhook(t.services, actorOf(alice), { name: 'Private', url: receiver.url, events: ['tag.created'] });
    receiver.behaviour = 'fail';
    const sent = await webhooks.sendTestEvent(t.services, actorOf(alice), { webhookId: hook.id, event: 'tag.created' });
    receiver.behaviour = 'ok';
    expect(sent.status).toBe('failed');
    const received = receiver.received.length;

    const jar = await signInHttp(t, bob.email);
    const csrf = csrfOf(await get(t, '/dashboard/webhooks', jar));
    const base = `/dashboard/webhooks/${hook.id}`;
    for (const path of [base, `${base}/edit`, `${base}/deliveries/${sent.delivery_id}`, '/dashboard/webhooks/wh_missing']) {
      const response = await get(t, path, jar);
      expect(response.status, path).toBe(404);
      expect(response.text).not.toContain('Private');
    }
    for (const [path, fields] of [
      [base, { name: 'Taken', url: receiver.url, events: 'tag.updated', enabled: 'on' }],
      [`${base}/disable`, {}],
      [`${base}/delete`, { confirmed: 'yes' }],
      [`${base}/delete`, {}],
      [`${base}/secret`, { confirmed: 'yes' }],
      [`${base}/test`, { event: 'tag.created' }],
      [`${base}/deliveries/${sent.delivery_id}/retry`, {}],
    ] as const) {
      const response = await post(t, path, jar, { _csrf: csrf, ...fields });
      expect(response.status, path).toBe(404);
    }
    expect(receiver.received.length).toBe(received);
    const [still] = await webhooksOf(alice);
    expect(still).toMatchObject({ name: 'Private', enabled: true, events: ['tag.created'] });
    expect((await deliveriesOf(alice, hook.id)).map((d) => d.status)).toEqual(['failed']);
    expect((await get(t, '/dashboard/webhooks', jar)).text).not.toContain('Private');
    await webhooks.deleteWebhook(t.services, actorOf(alice), { id: hook.id });
  });
});

/** The names in the form's header rows (the row template left out). */
function headerRows(html: string): string[] {
  const list = /<ul class="header-rows" id="header-rows">(.*?)<\/ul>/s.exec(html)?.[1] ?? '';
  return [...list.matchAll(/<input[^>]*name="header_name"[^>]*>/g)].map((match) => /value="([^"]*)"/.exec(match[0])?.[1] ?? '');
}

/** A form POST of an already encoded body (repeated fields: header rows, events). */
async function postRaw(t: TestApp, path: string, jar: CookieJar, body: URLSearchParams) {
  const response = await request(t, 'POST', path, {
    rawBody: body.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header(), origin: t.baseUrl },
  });
  jar.take(response);
  return response;
}
