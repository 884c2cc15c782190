import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/**
 * On PostgreSQL, API keys and tags are cached in the process and kept exact by notifications
 * from triggers, with a fence per batch of requests (perf/pg-change-feed.ts). These tests change
 * rows on a connection of their own, as another process would, and expect the very next
 * request to see the change.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('exact caches on PostgreSQL', () => {
  const t = useApp();
  const alice = useAccount(t);
  let sql: pg.Client;
  const feedName = () => `tagsvc cache feed ${t.config.databaseSchema}`;

  beforeAll(async () => {
    sql = new pg.Client({ connectionString: t.config.databaseUrl, options: `-c search_path="${t.config.databaseSchema}"` });
    await sql.connect();
  });
  afterAll(() => sql.end());

  async function feedListening(): Promise<void> {
    await vi.waitFor(
      async () => {
        await request(t, 'GET', '/v1/me', { key: alice.key });
        const { rows } = await sql.query("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query = ''", [feedName()]);
        expect(rows).toHaveLength(1);
        // It reconnects a second after a loss.
      },
      { timeout: 5000, interval: 50 },
    );
  }

  /** A change with triggers off (replica role): no notification reaches the process. */
  async function unannounced(text: string, values: unknown[]): Promise<void> {
    await sql.query('SET session_replication_role = replica');
    try {
      await sql.query(text, values);
    } finally {
      await sql.query('SET session_replication_role = origin');
    }
  }

  async function title(id: string): Promise<string> {
    const response = await request(t, 'GET', `/v1/tags/${id}`, { key: alice.key });
    expect(response.status, response.text).toBe(200);
    return response.body.data.title;
  }

  it('serves tags from the cache, and a change made elsewhere on the very next request', async () => {
    await feedListening();
    const created = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'First' } });
    const id = created.body.data.id as string;
    expect(await title(id)).toBe('First');

    // Without the trigger's notification, the process keeps answering from its cache.
    await unannounced("UPDATE tags SET title = 'Unannounced' WHERE id = $1", [id]);
    expect(await title(id)).toBe('First');

    // With it, the next request sees the change, and so does the public page.
    await sql.query("UPDATE tags SET title = 'Changed elsewhere' WHERE id = $1", [id]);
    expect(await title(id)).toBe('Changed elsewhere');
    await sql.query("UPDATE tags SET read_permission = 'private' WHERE id = $1", [id]);
    const page = await request(t, 'GET', `/t/${created.body.data.short_id}`);
    expect(page.status).toBe(404);
  });

  it('refuses a key disabled elsewhere on the very next request, and many requests at once agree', async () => {
    await feedListening();
    const { key, id } = await createKey(t, alice.email, { name: 'doomed' });
    expect((await request(t, 'GET', '/v1/me', { key })).status).toBe(200);
    await sql.query('UPDATE api_keys SET enabled = 0 WHERE id = $1', [id]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => request(t, 'GET', '/v1/me', { key })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(401));
  });

  it('caches nothing while its connection is lost, and listens again', async () => {
    await feedListening();
    const created = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Before the loss' } });
    const id = created.body.data.id as string;
    expect(await title(id)).toBe('Before the loss');

    await sql.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [feedName()]);
    // Changed without a notification while nobody listens: not served from the old cache.
    await unannounced("UPDATE tags SET title = 'During the loss' WHERE id = $1", [id]);
    expect(await title(id)).toBe('During the loss');

    await feedListening();
    await sql.query("UPDATE tags SET title = 'After the loss' WHERE id = $1", [id]);
    expect(await title(id)).toBe('After the loss');
  });

  it('creating a webhook announces no key change (its plan-count lock writes nothing)', async () => {
    const listener = new pg.Client({ connectionString: t.config.databaseUrl });
    await listener.connect();
    const topics: string[] = [];
    listener.on('notification', (message) => topics.push(message.payload ?? ''));
    await listener.query('LISTEN tagsvc_cache');
    try {
      const created = await request(t, 'POST', '/v1/webhooks', {
        key: alice.key,
        body: { name: 'quiet', url: 'https://203.0.114.7/hook', events: ['tag.created'] },
      });
      expect(created.status, created.text).toBe(201);
      // A change that does notify, committed after the webhook: once it arrives, any
      // notification of the webhook's commit would have arrived before it.
      await sql.query("UPDATE tags SET title = title WHERE id = 'tag_none'");
      await vi.waitFor(() => expect(topics).toContain(`${t.config.databaseSchema} tags`), { timeout: 5000, interval: 20 });
      expect(topics).not.toContain(`${t.config.databaseSchema} keys`);
    } finally {
      await listener.end();
    }
  });
});
