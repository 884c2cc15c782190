import { describe, expect, it } from 'vitest';
import { jobs } from '../../src/jobs/index.js';
import { purgeSandbox } from '../../src/jobs/sandbox-purge.js';
import { createAccount, createKey, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/** The outbox: exactly the expected events after each operation, none after a failed one. */
describe('events outbox', () => {
  const t = useApp();
  const alice = useAccount(t);

  async function eventsSince(cursor: string) {
    const rows = await t.database.db.selectFrom('events').selectAll().where('id', '>', cursor).orderBy('id').execute();
    return rows.map((row) => ({ row, body: JSON.parse(row.payload) }));
  }

  async function cursor(): Promise<string> {
    const last = await t.database.db.selectFrom('events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
    return last?.id ?? '';
  }

  it('tag.created carries the tag as GET returns it', async () => {
    const start = await cursor();
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Evented', content: [{ type: 'divider' }] } })).body
      .data;
    const events = await eventsSince(start);
    expect(events).toHaveLength(1);
    const { row, body } = events[0]!;
    // Events carry the tag as the API answers it, but for the preview address, which events never carry.
    const withoutPreview = ({ preview_url: _preview, ...rest }: { preview_url: string }) => rest;
    expect(tag.preview_url).toMatch(/\/preview\//);
    expect(body).toEqual({ id: row.id, event: 'tag.created', created_at: tag.created_at, data: { tag: withoutPreview(tag) } });
    expect(row.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(row).toMatchObject({
      type: 'tag.created',
      environment: 'live',
      owner_id: alice.userId,
      organization_id: null,
      tag_id: tag.id,
      dispatched_at: null,
    });
    const fetched = (await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).body.data;
    expect(body.data.tag).toEqual(withoutPreview(fetched));
  });

  it('tag.updated carries the updated tag; tag.deleted the short form', async () => {
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Lifecycle' } })).body.data;
    let start = await cursor();
    const updated = (await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { title: 'Lifecycle 2' } })).body.data;
    let events = await eventsSince(start);
    expect(events.map((e) => e.body.event)).toEqual(['tag.updated']);
    const { preview_url: _preview, ...updatedTag } = updated;
    expect(events[0]!.body.data).toEqual({ tag: updatedTag });

    start = await cursor();
    await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: alice.key });
    events = await eventsSince(start);
    expect(events.map((e) => e.body.event)).toEqual(['tag.deleted']);
    expect(events[0]!.body.data).toEqual({ tag: { id: tag.id, short_id: tag.short_id, title: 'Lifecycle 2' } });
  });

  it('a batch yields one tag.created per tag, in order', async () => {
    const start = await cursor();
    const result = (
      await request(t, 'POST', '/v1/tags/batch', {
        key: alice.key,
        body: { tags: [{ title: 'one' }, { title: 'two' }, { title: 'three' }] },
      })
    ).body.data;
    const events = await eventsSince(start);
    expect(events.map((e) => e.body.event)).toEqual(['tag.created', 'tag.created', 'tag.created']);
    expect(events.map((e) => e.body.data.tag.id)).toEqual(result.tags.map((x: { id: string }) => x.id));
  });

  it('qr.generated for every QR request', async () => {
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'QR' } })).body.data;
    const start = await cursor();
    await request(t, 'GET', `/v1/tags/${tag.id}/qr?format=svg&size=128`, { key: alice.key });
    await request(t, 'GET', `/v1/tags/${tag.short_id}/qr`, { key: alice.key });
    const events = await eventsSince(start);
    expect(events.map((e) => e.body.data.qr)).toEqual([
      { format: 'svg', size: 128, color: '000000', background: 'ffffff' },
      { format: 'png', size: 512, color: '000000', background: 'ffffff' },
    ]);
    expect(events[0]!.body.data.tag).toEqual({ id: tag.id, short_id: tag.short_id, title: 'QR' });
  });

  it('no event after a failed operation', async () => {
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Stable' } })).body.data;
    const other = await createAccount(t);
    const start = await cursor();
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: '' } });
    await request(t, 'POST', '/v1/tags/batch', { key: alice.key, body: { tags: [{ title: 'fine' }, { title: '' }] } });
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { content: [{ type: 'bogus' }] } });
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: other.key, body: { title: 'theirs' } });
    await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: other.key });
    await request(t, 'GET', `/v1/tags/${tag.id}/qr?size=1`, { key: alice.key });
    expect(await eventsSince(start)).toEqual([]);
  });

  it('events record the environment and organization of the change', async () => {
    const testKey = (await createKey(t, alice.email, { test: true })).key;
    const start = await cursor();
    await request(t, 'POST', '/v1/tags', { key: testKey, body: { title: 'sandbox' } });
    const [event] = await eventsSince(start);
    expect(event!.row.environment).toBe('test');
  });
});

describe('sandbox purge job', () => {
  const t = useApp();

  it('is registered with the worker', () => {
    expect(jobs.map((job) => job.name)).toContain('sandbox-purge');
  });

  it('deletes test data older than the retention and keeps live and recent test data', async () => {
    const account = await createAccount(t);
    const testKey = (await createKey(t, account.email, { test: true })).key;
    t.clock.freeze(new Date('2026-01-01T00:00:00.000Z'));
    const folder = (await request(t, 'POST', '/v1/folders', { key: testKey, body: { name: 'old' } })).body.data;
    const oldTest = (await request(t, 'POST', '/v1/tags', { key: testKey, body: { title: 'old test', folder_id: folder.id } })).body.data;
    const oldLive = (await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'old live' } })).body.data;
    t.clock.freeze(new Date('2026-03-01T00:00:00.000Z'));
    const recentTest = (await request(t, 'POST', '/v1/tags', { key: testKey, body: { title: 'recent test' } })).body.data;

    const purged = await purgeSandbox(t.services, '2026-02-01T00:00:00.000Z');
    expect(purged).toEqual({ tags: 1, folders: 1, events: 1 });
    const status = async (key: string, id: string) => (await request(t, 'GET', `/v1/tags/${id}`, { key })).status;
    expect(await status(testKey, oldTest.id)).toBe(404);
    expect(await status(account.key, oldLive.id)).toBe(200);
    expect(await status(testKey, recentTest.id)).toBe(200);
    expect((await request(t, 'GET', `/v1/folders/${folder.id}`, { key: testKey })).status).toBe(404);
    // Short ids are never handed out again, even after the purge.
    const claimed = await t.database.db
      .selectFrom('short_ids')
      .select('short_id')
      .where('short_id', '=', oldTest.short_id)
      .executeTakeFirst();
    expect(claimed?.short_id).toBe(oldTest.short_id);
  });
});
