import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, describe, expect, it } from 'vitest';
import { expectError, request, runCli, startTestApp, type Account, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv, receiverPool } from './support.js';

/**
 * Webhook signing secrets are stored encrypted under SECRET_KEY (AES-256-GCM, `enc1.<kid>.…`):
 * the API, the dashboard and the deliveries see them in clear, the database never does, and a
 * SECRET_KEY rotation keeps everything working.
 */

const SEALED = /^enc1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/;
const whsec = () => `whsec_${randomBytes(24).toString('base64')}`;

async function storedSecret(t: TestApp, id: string): Promise<string> {
  const row = await t.database.db.selectFrom('webhooks').select('secret').where('id', '=', id).executeTakeFirstOrThrow();
  return row.secret;
}

/** The key id a stored secret names. */
const kidOf = (stored: string) => stored.split('.')[1];

/**
 * Creates a tag through `t` and waits for each receiver (one webhook's each) to get its
 * tag.created delivery, checking the signature with that webhook's secret and both verifiers.
 */
async function expectSignedDeliveries(t: TestApp, account: Account, targets: Array<[Receiver, string]>): Promise<void> {
  const title = `signed ${randomBytes(3).toString('hex')}`;
  expect((await request(t, 'POST', '/v1/tags', { key: account.key, body: { title } })).status).toBe(201);
  for (const [receiver, secret] of targets) {
    const got = await waitFor(() => receiver.received.find((r) => r.body.includes(title)), 10_000, 'the delivery');
    expect(new StandardWebhook(secret).verify(got.body, got.headers)).toEqual(got.json);
    expect(new SvixWebhook(secret).verify(got.body, got.headers)).toEqual(got.json);
  }
}

describe('webhook secrets at rest', () => {
  const t = useApp(async () => ({ worker: true, env: await deliveryEnv() }));
  const alice = useAccount(t);
  const receivers = receiverPool();
  const receiver = () => receivers.start();

  afterAll(() => receivers.closeAll());

  it('stores the secret encrypted; the API shows it in clear and deliveries verify', async () => {
    const r = await receiver();
    const others = await receiver();
    const given = 'a plain secret of my own';
    const generated = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
    const chosen = await createWebhook(t, alice.key, { url: others.url, events: ['qr.generated'], secret: given });
    expect(chosen.secret).toBe(given);
    for (const hook of [generated, chosen]) {
      const stored = await storedSecret(t, hook.id);
      expect(stored).toMatch(SEALED);
      expect(stored).not.toContain(hook.secret);
      expect(stored).not.toContain(hook.secret.slice('whsec_'.length));
      expect((await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.secret).toBe(hook.secret);
    }
    // A random IV each time: the same secret never gives the same stored value.
    const twin = await createWebhook(t, alice.key, { url: others.url, events: ['qr.generated'], secret: given });
    expect(await storedSecret(t, twin.id)).not.toBe(await storedSecret(t, chosen.id));
    await expectSignedDeliveries(t, alice, [[r, generated.secret]]);
  });

  it('seals a secret stored in clear by an earlier version at the next start, reading it meanwhile', async () => {
    const r = await receiver();
    const hook = await createWebhook(t, alice.key, { url: r.url, events: ['tag.created'] });
    const legacy = whsec();
    await t.database.db.updateTable('webhooks').set({ secret: legacy }).where('id', '=', hook.id).execute();
    // Until the next start (an older process still writing, during an upgrade), it is read as it is.
    expect((await request(t, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.secret).toBe(legacy);
    await expectSignedDeliveries(t, alice, [[r, legacy]]);

    const restarted = await startTestApp({ env: t.env });
    try {
      const stored = await storedSecret(t, hook.id);
      expect(stored).toMatch(SEALED);
      expect(stored).not.toContain(legacy.slice('whsec_'.length));
      const sealedRows = await t.database.db.selectFrom('webhooks').select('secret').execute();
      expect(sealedRows.every((row) => SEALED.test(row.secret))).toBe(true);
      expect((await request(restarted, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.secret).toBe(legacy);
    } finally {
      await restarted.close();
    }
    await expectSignedDeliveries(t, alice, [[r, legacy]]);
  });

  it('keeps the secret out of an Idempotency-Key record; a replay reads the current one', async () => {
    const r = await receiver();
    const idempotencyKey = `create-${randomBytes(6).toString('hex')}`;
    const create = () =>
      request(t, 'POST', '/v1/webhooks', {
        key: alice.key,
        body: { name: 'replayed', url: r.url, events: ['tag.created'] },
        headers: { 'idempotency-key': idempotencyKey },
      });
    const first = await create();
    expect(first.status).toBe(201);
    const { id, secret } = first.body.data;

    const record = await t.database.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirstOrThrow();
    expect(record.response_body).not.toContain(secret.slice('whsec_'.length));
    expect(JSON.parse(record.response_body!).data).toMatchObject({ id, secret: null });

    const replay = await create();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.text).toBe(first.text);

    // Rotated since: the replay shows the secret that signs now, not the first answer's.
    const rotated = whsec();
    expect((await request(t, 'PUT', `/v1/webhooks/${id}`, { key: alice.key, body: { secret: rotated } })).status).toBe(200);
    const afterRotation = await create();
    expect(afterRotation.body).toEqual({ ...first.body, data: { ...first.body.data, secret: rotated } });

    // Deleted since: there is no secret to show.
    expect((await request(t, 'DELETE', `/v1/webhooks/${id}`, { key: alice.key })).status).toBe(200);
    expectError(await create(), 404, 'not_found');
  });
});

describe('SECRET_KEY rotation', () => {
  const receivers: Receiver[] = [];
  /** The original server (old SECRET_KEY, no worker): it owns the data the others share. */
  const original = useApp(async () => ({ env: await deliveryEnv() }));
  const alice = useAccount(original);
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  /** Another server on the same data, with these SECRET_KEY settings and a worker. */
  const restart = (env: Record<string, string>) => startTestApp({ worker: true, env: { ...original.env, ...env } });

  it('SECRET_KEY_PREVIOUS keeps deliveries verifying; `secrets rotate` leaves none under the old key', async () => {
    const r = [await Receiver.start(), await Receiver.start()];
    receivers.push(...r);
    const hooks = [
      await createWebhook(original, alice.key, { url: r[0]!.url, events: ['tag.created'] }),
      await createWebhook(original, alice.key, { url: r[1]!.url, events: ['tag.created'], secret: whsec() }),
    ];
    const targets = hooks.map((hook, i): [Receiver, string] => [r[i]!, hook.secret]);
    const oldKid = kidOf(await storedSecret(original, hooks[0]!.id));
    const oldKey = original.env.SECRET_KEY!;
    const newKey = randomBytes(32).toString('hex');

    const rotating = await restart({ SECRET_KEY: newKey, SECRET_KEY_PREVIOUS: oldKey });
    try {
      await expectSignedDeliveries(rotating, alice, targets);
      for (const hook of hooks) {
        expect((await request(rotating, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.secret).toBe(hook.secret);
      }
      const created = await createWebhook(rotating, alice.key, { url: r[0]!.url, events: ['qr.generated'] });
      const newKid = kidOf(await storedSecret(rotating, created.id));
      expect(newKid).not.toBe(oldKid);

      const rotated = await runCli(['secrets', 'rotate', '--json'], rotating.env);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(JSON.parse(rotated.stdout)).toEqual({
        webhook_secrets: 3,
        reencrypted: 2,
        authenticator_secrets: 0,
        authenticator_reencrypted: 0,
      });
      const rows = await original.database.db.selectFrom('webhooks').select('secret').execute();
      expect(rows.map((row) => kidOf(row.secret))).toEqual([newKid, newKid, newKid]);
      // Nothing left to do: a second run re-encrypts none.
      expect(JSON.parse((await runCli(['secrets', 'rotate', '--json'], rotating.env)).stdout)).toEqual({
        webhook_secrets: 3,
        reencrypted: 0,
        authenticator_secrets: 0,
        authenticator_reencrypted: 0,
      });
    } finally {
      await rotating.close();
    }

    // SECRET_KEY_PREVIOUS dropped: every secret still opens and signs.
    const rotatedOnly = await restart({ SECRET_KEY: newKey });
    try {
      for (const hook of hooks) {
        expect((await request(rotatedOnly, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key })).body.data.secret).toBe(hook.secret);
      }
      await expectSignedDeliveries(rotatedOnly, alice, targets);
    } finally {
      await rotatedOnly.close();
    }
  });

  it('a secret under a key the server does not have is a clear 500, and `secrets rotate` fails naming the fix', async () => {
    const hook = await createWebhook(original, alice.key, { url: 'https://example.com/hook', events: ['tag.created'] });
    const stranger = await startTestApp({ env: { ...original.env, SECRET_KEY: randomBytes(32).toString('hex') } });
    try {
      const response = await request(stranger, 'GET', `/v1/webhooks/${hook.id}`, { key: alice.key });
      expectError(response, 500, 'internal_error');
      expect(response.body.error.message).toContain('SECRET_KEY_PREVIOUS');
      // The server itself goes on.
      expect((await request(stranger, 'GET', '/v1/me', { key: alice.key })).status).toBe(200);
      const failed = await runCli(['secrets', 'rotate', '--json'], stranger.env);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stderr).error.message).toMatch(
        /are encrypted with a key that is neither SECRET_KEY nor in SECRET_KEY_PREVIOUS/,
      );
    } finally {
      await stranger.close();
    }
  });
});
