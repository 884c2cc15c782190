import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, expectError, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { createWebhook, expectUtf8Signature } from './support.js';

/**
 * Local webhook development: ALLOW_PRIVATE_NETWORKS=true lets plain http:// reach a receiver on
 * a loopback or private address; without it, only https:// to public hosts is accepted.
 */
describe('plain http:// webhook receivers', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start('ok', 'http');
  });
  afterAll(() => receiver.close());

  describe('with ALLOW_PRIVATE_NETWORKS=true', () => {
    const t = useApp({ worker: true, env: { ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms' } });

    it('delivers signed events to an http receiver on 127.0.0.1', async () => {
      const owner = await createAccount(t, 'pro');
      const hook = await createWebhook(t, owner.key, { url: receiver.url, events: ['tag.created'], secret: 'a local secret' });
      expect(hook.url).toBe(receiver.url);
      const tag = await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'local' } });
      expect(tag.status).toBe(201);
      const received = await waitFor(
        () => receiver.events('tag.created').find((r) => (r.json.data.tag as { id: string }).id === tag.body.data.id),
        10_000,
        'the tag.created delivery',
      );
      expectUtf8Signature('a local secret', received);

      const tested = await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key });
      expect(tested.body.data).toMatchObject({ status: 'success', response_code: 200 });
    });

    it('still refuses http:// to a public host', async () => {
      const owner = await createAccount(t, 'pro');
      const refused = await request(t, 'POST', '/v1/webhooks', {
        key: owner.key,
        body: { name: 'n', url: 'http://93.184.215.14/hook', events: ['tag.created'] },
      });
      expectError(refused, 400, 'invalid_url', 'url');
      expect(refused.body.error.message).toContain('http:// only for a receiver on a loopback or private address');
    });
  });

  describe('without ALLOW_PRIVATE_NETWORKS', () => {
    const t = useApp({ env: { ALLOW_PRIVATE_NETWORKS: 'false' } });

    const refusal = async (url: string) => {
      const owner = await createAccount(t, 'pro');
      const created = await request(t, 'POST', '/v1/webhooks', { key: owner.key, body: { name: 'n', url, events: ['tag.created'] } });
      expectError(created, 400, 'invalid_url', 'url');
      return created.body.error.message as string;
    };

    it('refuses the same http:// URL with the https-only error, naming the setting that allows it', async () => {
      expect(await refusal(receiver.url)).toBe(
        'url must be an https:// URL; to allow http:// to a receiver on a private network in development, start the server with ALLOW_PRIVATE_NETWORKS=true',
      );
    });

    it('names the setting when an https:// URL points at a private address', async () => {
      expect(await refusal('https://127.0.0.1:8443/hook')).toBe(
        'url is not publicly reachable: the host 127.0.0.1 resolves to a private or reserved address; to allow private networks in development, start the server with ALLOW_PRIVATE_NETWORKS=true',
      );
    });

    it('does not name it where it would not help: a public http:// host, a host that does not resolve', async () => {
      expect(await refusal('http://93.184.215.14/hook')).toBe('url must be an https:// URL');
      expect(await refusal('https://tagsvc-test.invalid/hook')).toBe(
        'url is not publicly reachable: the host tagsvc-test.invalid could not be resolved',
      );
    });
  });
});
