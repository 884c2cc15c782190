import { readFile } from 'node:fs/promises';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SAMPLES, EVENT_TYPES, eventSamples } from '../../src/features/events/index.js';
import { createAccount, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { Receiver } from '../helpers/receiver.js';
import { createWebhook, deliveryEnv } from './support.js';

const BEGIN = '<!-- events:begin (generated from EVENT_SAMPLES by test/webhooks/catalogue.test.ts) -->';
const END = '<!-- events:end -->';

/** The "Events" list of docs/webhooks.md: each event with its sample `data`. */
function renderEventSection(): string {
  const parts = EVENT_TYPES.map((type) => `### \`${type}\`\n\n\`\`\`json\n${JSON.stringify(EVENT_SAMPLES[type], null, 2)}\n\`\`\`\n`);
  return `${BEGIN}\n\n${parts.join('\n')}\n${END}`;
}

describe('the event catalogue', () => {
  it('docs/webhooks.md lists every event with its payload as the catalogue has it', async () => {
    const docs = await readFile(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    const section = renderEventSection();
    if (!docs.includes(section)) {
      throw new Error(`docs/webhooks.md is not current; replace its events section with:\n\n${section}\n`);
    }
  });

  it('every sample id has the format of a real id', () => {
    // Every string that looks like a prefixed id, anywhere in the samples, is a lower-case ULID.
    const ids = JSON.stringify(EVENT_SAMPLES).match(/"[a-z]+_[0-9a-z]{20,}"/g) ?? [];
    expect(ids.length).toBeGreaterThan(8);
    for (const id of ids) expect(id).toMatch(/^"(tag|fld|file|usr|view|blk)_[0-9a-hjkmnp-tv-z]{26}"$/);
    for (const type of EVENT_TYPES) expect(EVENT_SAMPLES[type].tag.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
  });
});

describe('POST /v1/webhooks/{id}/test sends the sample of the event asked for', () => {
  const t = useApp(async () => ({ env: await deliveryEnv({ PUBLIC_BASE_URL: 'https://tags.test.example' }) }));
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver.close());

  it.each(EVENT_TYPES)('%s', async (type) => {
    const alice = await createAccount(t);
    const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
    const before = receiver.received.length;
    const response = await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key, body: { event: type } });
    expect(response.body.data).toMatchObject({ status: 'success', response_code: 200 });
    expect(receiver.received).toHaveLength(before + 1);
    const got = receiver.received.at(-1)!;
    expect(new StandardWebhook(hook.secret).verify(got.body, got.headers)).toEqual(got.json);
    expect(got.json).toMatchObject({ event: type, test: true });
    const expected = eventSamples(t.config.publicBaseUrl)[type];
    expect(Object.keys(got.json.data).sort()).toEqual(Object.keys(expected).sort());
    expect(got.json.data).toEqual(expected);
  });

  it('puts the addresses of the sample on PUBLIC_BASE_URL', async () => {
    const alice = await createAccount(t);
    const hook = await createWebhook(t, alice.key, { url: receiver.url, events: ['tag.created'] });
    await request(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: alice.key, body: { event: 'file.uploaded' } });
    const data = receiver.received.at(-1)!.json.data as { tag: unknown; file: { id: string; tag_id: string; url: string } };
    expect(data.file.url).toBe(`https://tags.test.example/v1/files/${data.file.id}/download`);
    expect(data.tag).toEqual({ id: data.file.tag_id, short_id: expect.any(String), title: expect.any(String) });
  });
});
