import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE } from '../../src/db/database.js';
import { transaction } from '../../src/db/transaction.js';
import { DependencyUnavailable, InsufficientStorage } from '../../src/errors.js';
import { exactCache } from '../../src/perf/exact-cache.js';
import { createAccount, request, startTestApp, type Account, type ApiResponse, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { Receiver, waitFor } from '../helpers/receiver.js';
import { describeWithRedis } from '../helpers/redis.js';
import { CookieJar, csrfOf, get, post } from '../dashboard/support.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { createWebhook, deliveryEnv, spawnedTrust, spawnTagsvc } from '../webhooks/support.js';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
/** The bound under test: short, so a frozen dependency costs the suite a second per request. */
const BOUND_MS = 1000;

/** A dependency's failure must be a 503 in the envelope with Retry-After, never a 500. */
function expectAnsweredOrUnavailable(response: ApiResponse): void {
  if (response.status < 300) return;
  expect(response.status, response.text).toBe(503);
  expect(response.body?.error?.code).toBe('service_unavailable');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** Requests while `during` runs: tag creations and reads, eight at a time; what was answered. */
async function underLoad(t: TestApp, account: Account, during: () => Promise<void>) {
  const created: string[] = [];
  const statuses: number[] = [];
  let running = true;
  let n = 0;
  const client = async () => {
    while (running) {
      const write = n++ % 2 === 0;
      const response = write
        ? await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: `Under load ${n}` } })
        : await request(t, 'GET', '/v1/tags?limit=5', { key: account.key });
      expectAnsweredOrUnavailable(response);
      statuses.push(response.status);
      if (write && response.status === 201) created.push(response.body.data.id);
    }
  };
  const clients = Array.from({ length: 8 }, client);
  const outcome = await during().then(
    () => undefined,
    (error: unknown) => error,
  );
  running = false;
  const failed = (await Promise.allSettled(clients)).find((settled) => settled.status === 'rejected');
  if (outcome) throw outcome;
  if (failed) throw failed.reason;
  return { created, statuses };
}

/** Every tag answered 201 is there, once the database is back. */
async function expectAllStored(t: TestApp, account: Account, ids: string[]): Promise<void> {
  for (const id of ids) {
    const response = await request(t, 'GET', `/v1/tags/${id}`, { key: account.key });
    expect(response.status, `tag ${id} answered 201 but not stored`).toBe(200);
  }
}

/** Times a request; it must come back (with an answer) well within a few bounds. */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL connections lost, frozen and refused', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let account: Account;
  let admin: pg.Client;

  beforeAll(async () => {
    const target = new URL(TEST_DATABASE_URL!);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    t = await startTestApp({
      worker: true,
      env: {
        ...(await deliveryEnv()),
        DATABASE_URL: proxy.urlFor(TEST_DATABASE_URL!),
        DEPENDENCY_TIMEOUT: `${BOUND_MS}ms`,
        DATABASE_POOL_SIZE: '4',
        LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
      },
    });
    account = await createAccount(t);
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    proxy.restore();
    await admin.end();
    await t.close();
    await proxy.close();
  });

  /** Ends every session of this test app's pool and cache feed, wherever each stands. */
  async function terminateSessions(): Promise<number> {
    const { rows } = await admin.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name LIKE '%' || $1`,
      [t.config.databaseSchema],
    );
    return rows.length;
  }

  // First: the terminations below end the cache feed's connection too, and pages loaded in
  // the second it takes to reconnect are not kept in memory.
  it('while frozen: 503 within the bound, /readyz 503, /healthz 200; healthy within 2 s of its return', async () => {
    const viewed = await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'Viewed before the outage' } });
    const unseen = await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'Never viewed' } });
    // Loaded until this process keeps it: a load that races the notification of a creation, or
    // a change feed that a loaded machine left unanswered past its limit, keeps nothing.
    const tags = exactCache(t.database.db, 'tags')!;
    await waitFor(
      async () => {
        expect((await request(t, 'GET', `/t/${viewed.body.data.short_id}`)).status).toBe(200);
        return tags.lastKnown(viewed.body.data.short_id) !== undefined;
      },
      10_000,
      'the page to be kept in memory',
    );
    proxy.freeze();
    try {
      // A page this process was serving stays up, uncounted; one it never loaded is a 503 page.
      const page = await request(t, 'GET', `/t/${viewed.body.data.short_id}`);
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      expect(page.text).toContain('Viewed before the outage');
      const missing = await request(t, 'GET', `/t/${unseen.body.data.short_id}`);
      expect(missing.status).toBe(503);
      expect(missing.headers.get('content-type')).toContain('text/html');
      expect(missing.text).toContain('Temporarily unavailable');
      expect(Number(missing.headers.get('retry-after'))).toBeGreaterThan(0);
      const read = await timed(() => request(t, 'GET', '/v1/tags?limit=1', { key: account.key }));
      expectAnsweredOrUnavailable(read.value);
      expect(read.value.status).toBe(503);
      expect(read.ms).toBeLessThan(BOUND_MS * 4);
      const write = await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'while frozen' } });
      expect(write.status).toBe(503);
      const ready = await timed(() => request(t, 'GET', '/readyz'));
      expect(ready.value.status).toBe(503);
      expect(ready.ms).toBeLessThan(BOUND_MS * 4);
      expect((await request(t, 'GET', '/healthz')).status).toBe(200);
    } finally {
      proxy.restore();
    }
    await waitFor(async () => (await request(t, 'GET', '/readyz')).status === 200, 2000, '/readyz to answer 200 again');
    expect((await request(t, 'GET', '/v1/tags?limit=1', { key: account.key })).status).toBe(200);
  });

  it('survives pg_terminate_backend of all its sessions under load, and loses nothing answered 201', async () => {
    // A scale-out beside the test's own process: a web process and a worker, on the same schema.
    const env = { ...t.env, ...(await spawnedTrust()), LOG_LEVEL: 'info' };
    const web = spawnTagsvc(['serve', '--no-worker'], { ...env, PORT: '0' });
    const worker = spawnTagsvc(['worker'], env);
    const [, webUrl] = await web.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    await worker.waitForOutput(/worker started/);
    const receiver = await Receiver.start('ok');
    const hook = await createWebhook(t, account.key, { url: receiver.url, events: ['tag.created'] });
    let terminated = 0;
    const { created, statuses } = await underLoad(t, account, async () => {
      for (let round = 0; round < 6; round++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        terminated += await terminateSessions();
      }
    });
    expect(terminated).toBeGreaterThan(6);
    expect(statuses.filter((status) => status < 300).length).toBeGreaterThan(0);
    // Healthy again at once: the pool opens new connections for the next request.
    const after = await request(t, 'GET', '/v1/tags?limit=1', { key: account.key });
    expect(after.status).toBe(200);
    await expectAllStored(t, account, created);
    try {
      // Every process lived through it, and answers again.
      expect(web.child.exitCode).toBeNull();
      expect(worker.child.exitCode).toBeNull();
      const throughWeb = await waitFor(
        async () => (await request(t, 'GET', '/v1/tags?limit=1', { key: account.key, baseUrl: webUrl })).status === 200,
        2000,
        'the web process to answer again',
      );
      expect(throughWeb).toBe(true);
      // Deliveries stay at-least-once: every tag answered 201 reaches the receiver.
      await waitFor(
        () => created.every((id) => receiver.events('tag.created').some((r) => (r.json.data.tag as { id: string }).id === id)),
        20_000,
        'a delivery of every created tag',
      );
    } finally {
      await Promise.all([web.stop(), worker.stop(), receiver.close()]);
      await request(t, 'DELETE', `/v1/webhooks/${hook.id}`, { key: account.key });
    }
  });

  it('a session ended mid-transaction fails it as a whole, with 503', async () => {
    await sql`CREATE TABLE fault_probe (v text)`.execute(t.services.db);
    const outcome = transaction(t.services.db, async (trx) => {
      await sql`INSERT INTO fault_probe VALUES ('half-written')`.execute(trx);
      await terminateSessions();
      await sql`INSERT INTO fault_probe VALUES ('never')`.execute(trx);
    });
    await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailable);
    // The pool's other connections were ended too: each fails once, as it is found dead.
    const rows = await waitFor(
      () =>
        sql<{ v: string }>`SELECT v FROM fault_probe`.execute(t.services.db).then(
          ({ rows }) => rows,
          () => undefined,
        ),
      2000,
      'the pool to connect again',
    );
    expect(rows).toEqual([]);
  });

  it("PostgreSQL's full disk (53100) is a 507; a shutdown it announces (57P01) is a 503", async () => {
    const raise = (code: string) =>
      sql`DO $$ BEGIN RAISE EXCEPTION 'raised by the test' USING ERRCODE = ${sql.lit(code)}; END $$`.execute(t.services.db);
    await expect(raise('disk_full')).rejects.toBeInstanceOf(InsufficientStorage);
    await expect(raise('admin_shutdown')).rejects.toBeInstanceOf(DependencyUnavailable);
    // A statement's own error stays what it is.
    await expect(raise('unique_violation')).rejects.toMatchObject({ code: '23505' });
  });

  it('while down (every connection cut, new ones refused): 503 at once; healthy within 2 s of its return', async () => {
    const { created } = await underLoad(t, account, async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      proxy.cut();
      try {
        const read = await request(t, 'GET', '/v1/tags?limit=1', { key: account.key });
        expect(read.status).toBe(503);
        expect((await request(t, 'GET', '/readyz')).status).toBe(503);
        expect((await request(t, 'GET', '/healthz')).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 300));
      } finally {
        proxy.restore();
      }
      await waitFor(async () => (await request(t, 'GET', '/readyz')).status === 200, 2000, '/readyz to answer 200 again');
    });
    await expectAllStored(t, account, created);
  });
});

describe.skipIf(TEST_DATABASE_URL)('SQLite locked by another process for longer than the bound', () => {
  const t = useApp({ env: { DEPENDENCY_TIMEOUT: `${BOUND_MS}ms` } });
  const account = useAccount(t);

  it('writes answer 503 once the bound has passed, reads go on, and writes resume when the lock is let go', async () => {
    const other = new SQLite(join(t.config.dataDir, SQLITE_FILE));
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      const write = await timed(() => request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'waits for the lock' } }));
      expectAnsweredOrUnavailable(write.value);
      expect(write.value.status).toBe(503);
      expect(write.ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
      expect((await request(t, 'GET', '/v1/tags?limit=1', { key: account.key })).status).toBe(200);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    expect((await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'after the lock' } })).status).toBe(201);
  });
});

describeWithRedis('Redis frozen and down', (redisUrl) => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    const target = new URL(redisUrl);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
  });
  afterAll(async () => {
    proxy.restore();
    await proxy.close();
  });
  const t = useApp(async () => ({ env: { REDIS_URL: proxy.urlFor(redisUrl), DEPENDENCY_TIMEOUT: `${BOUND_MS}ms`, RATE_LIMITS: 'true' } }));
  const account = useAccount(t);

  async function expectDegraded(shortId: string): Promise<void> {
    const api = await timed(() => request(t, 'GET', '/v1/me', { key: account.key }));
    expectAnsweredOrUnavailable(api.value);
    expect(api.value.status).toBe(503);
    expect(api.ms).toBeLessThan(BOUND_MS * 4);
    const ready = await timed(() => request(t, 'GET', '/readyz'));
    expect(ready.value.status).toBe(503);
    expect(ready.value.body.error.message).toContain('Redis');
    expect((await request(t, 'GET', '/healthz')).status).toBe(200);
    // Public pages do not need Redis: served, and their views recorded.
    expect((await request(t, 'GET', `/t/${shortId}`)).status).toBe(200);
    // The dashboard's sign-in checks its throttle in Redis: a page saying so, not a 500.
    const jar = new CookieJar();
    const form = await get(t, '/dashboard/login', jar);
    const signIn = await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email: account.email, password: 'wrong' });
    expect(signIn.status, signIn.text.slice(0, 300)).toBe(503);
    expect(signIn.text).toContain('Temporarily unavailable');
    expect(Number(signIn.headers.get('retry-after'))).toBeGreaterThan(0);
  }

  it('frozen: 503 within the bound where Redis is needed, pages still served; healthy within 2 s of its return', async () => {
    const tag = await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'Served without Redis' } });
    expect(tag.status).toBe(201);
    proxy.freeze();
    try {
      await expectDegraded(tag.body.data.short_id);
    } finally {
      proxy.restore();
    }
    await waitFor(async () => (await request(t, 'GET', '/v1/me', { key: account.key })).status === 200, 2000, 'the API to answer again');
  });

  it('down: 503 at once; healthy within 2 s of its return', async () => {
    const tag = await request(t, 'POST', '/v1/tags', { key: account.key, body: { title: 'Served without Redis' } });
    proxy.cut();
    try {
      await expectDegraded(tag.body.data.short_id);
    } finally {
      proxy.restore();
    }
    await waitFor(async () => (await request(t, 'GET', '/readyz')).status === 200, 2000, '/readyz to answer 200 again');
    expect((await request(t, 'GET', '/v1/me', { key: account.key })).status).toBe(200);
  });
});
