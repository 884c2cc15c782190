import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ViewsTable } from '../../src/db/schema.js';
import { transaction } from '../../src/db/transaction.js';
import { newId } from '../../src/lib/ids.js';
import { expectError, request, type Account, type TestApp } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { spawnTagsvc, type Spawned } from '../webhooks/support.js';
import { createTag, useAnalyticsApp, viewRow, type CreatedTag } from './support.js';

/**
 * The server answers every request on one thread (and on SQLite the database runs on it too):
 * no request may hold it. The server measured runs in a process of its own, as in production,
 * on the test app's database: in the test's process its thread would also run the test, its
 * client reading the export and the test runner, and collect their garbage. How late its
 * 10 ms event-loop timer fired at worst is read from its /metrics (nodejs_eventloop_lag_max_
 * seconds, which restarts at each reading) after each step.
 */

const VIEWS = 200_000;
const MAX_STALL_MS = 100;
const DAY_MS = 86_400_000;
const METRICS_TOKEN = 'stall-test-metrics-token';

/** The longest the server's event loop waited since the previous reading, in ms. */
async function lagSincePrevious(server: TestApp): Promise<number> {
  const response = await fetch(new URL('/metrics', server.baseUrl), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.text();
  const max = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  if (response.status !== 200 || !max) throw new Error(`no event-loop lag in /metrics (${response.status})`);
  return Number(max[1]) * 1000;
}

/** A GET whose body is kept as received, to be parsed once the steps are measured. */
function download(t: TestApp, key: string, path: string): Promise<{ status: number; body: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, t.baseUrl), { headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * `VIEWS` views of one tag spread over the past year, written straight into the tables in bulk
 * (recording them through pages would take minutes), with the daily and hourly rollups they
 * make: every other view is logged.
 */
async function seedViews(t: TestApp, tag: CreatedTag, account: Account): Promise<{ first: string; end: string }> {
  const now = t.clock.now().getTime();
  const today = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00.000Z`);
  const start = today - 364 * DAY_MS;
  const span = now - start;
  const BATCH = 500;
  await transaction(t.services.db, async (trx) => {
    for (let first = 0; first < VIEWS; first += BATCH) {
      const rows: ViewsTable[] = [];
      for (let i = first; i < Math.min(first + BATCH, VIEWS); i++) {
        const at = new Date(start + Math.floor((i * span) / VIEWS)).toISOString();
        const row = viewRow({ id: tag.id, ownerId: account.userId }, at, `visitor_${i % 5000}_0123456789`);
        row.id = newId('view');
        row.logged = i % 2;
        rows.push(row);
      }
      await trx.insertInto('views').values(rows).execute();
    }
    // The rollups the views make (all direct visits), grouped by the database.
    await sql`INSERT INTO tag_daily (tag_id, day, environment, owner_id, organization_id, views, qr_scans, direct_visits,
        unique_views, duration_sum, duration_count)
      SELECT tag_id, substr(occurred_at, 1, 10), environment, owner_id, organization_id, count(*), 0, count(*), 0, 0, 0
      FROM views WHERE tag_id = ${tag.id} GROUP BY tag_id, substr(occurred_at, 1, 10), environment, owner_id, organization_id`.execute(trx);
    await sql`INSERT INTO tag_hourly (tag_id, hour, views, qr_scans, direct_visits, duration_sum, duration_count, unique_visitors)
      SELECT tag_id, substr(occurred_at, 1, 13) || ':00:00Z', count(*), 0, count(*), 0, 0, 0
      FROM views WHERE tag_id = ${tag.id} GROUP BY tag_id, substr(occurred_at, 1, 13)`.execute(trx);
  });
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { first: day(start), end: day(today + DAY_MS) };
}

describe(`event-loop stalls at ${VIEWS.toLocaleString('en-US')} views`, () => {
  const t = useAnalyticsApp();
  const account = useAccount(t, 'enterprise');
  let tag: CreatedTag;
  let period: { first: string; end: string };

  let serverProcess: Spawned | undefined;
  let server: TestApp;

  beforeAll(async () => {
    tag = await createTag(t, account.key, { access_logging: true });
    period = await seedViews(t, tag, account);
    serverProcess = spawnTagsvc(['serve', '--no-worker'], { ...t.env, PORT: '0', LOG_LEVEL: 'info', METRICS_TOKEN });
    const [, url] = await serverProcess.waitForOutput(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    server = { ...t, baseUrl: url! } as TestApp;
  }, 300_000);
  afterAll(() => serverProcess?.stop('SIGTERM'));

  it('a year’s JSON export with views, logs and summary, huge offsets, counted pages and the tag’s deletion never stall the server', async () => {
    const laps: Array<{ name: string; ms: number }> = [];
    const lap = async (name: string) => laps.push({ name, ms: await lagSincePrevious(server) });
    await lagSincePrevious(server);
    const exported = await download(
      server,
      account.key,
      `/v1/analytics/export?format=json&include=views,logs,summary&start_date=${period.first}&end_date=${period.end}`,
    );
    await lap('export');
    const huge = { offset: '9000000000000000' };
    const views = await request(server, 'GET', `/v1/tags/${tag.id}/analytics/views?offset=${huge.offset}`, { key: account.key });
    const logs = await request(server, 'GET', `/v1/tags/${tag.id}/analytics/logs?offset=${huge.offset}`, { key: account.key });
    await lap('huge offsets');
    const all = { start_date: period.first, end_date: period.end };
    const viewPage = await request(server, 'GET', `/v1/tags/${tag.id}/analytics/views?${new URLSearchParams(all)}`, { key: account.key });
    const logPage = await request(server, 'GET', `/v1/tags/${tag.id}/analytics/logs?${new URLSearchParams(all)}`, { key: account.key });
    await lap('counted pages');
    const deleted = await request(server, 'DELETE', `/v1/tags/${tag.id}`, { key: account.key });
    await lap('deletion');
    const worst = Math.max(...laps.map((step) => step.ms));
    const steps = laps.map((step) => `${step.name} ${step.ms.toFixed(0)} ms`).join(', ');
    console.log(`event-loop stall at ${VIEWS} views: worst ${worst.toFixed(1)} ms (${steps})`);

    // What each request answered, checked once every step is measured.
    const body = Buffer.concat(exported.body).toString('utf8');
    expect(exported.status, body.slice(0, 300)).toBe(200);
    const data = JSON.parse(body).data as {
      rows: Array<{ views: number }>;
      views: Array<{ id: string; timestamp: string }>;
      logs: Array<{ id: string }>;
    };
    expect(data.rows.reduce((sum, row) => sum + row.views, 0)).toBe(VIEWS);
    expect(data.views).toHaveLength(VIEWS);
    expect(data.logs).toHaveLength(VIEWS / 2);
    for (let i = 1; i < data.views.length; i++) {
      const [a, b] = [data.views[i - 1]!, data.views[i]!];
      if (a.timestamp > b.timestamp || (a.timestamp === b.timestamp && a.id >= b.id)) throw new Error(`views out of order at ${i}`);
    }
    expect(viewPage.body.pagination.total).toBe(VIEWS);
    expect(logPage.body.pagination.total).toBe(VIEWS / 2);
    expectError(views, 400, 'validation_error', 'offset');
    expectError(logs, 400, 'validation_error', 'offset');
    expect(deleted.status, deleted.text).toBe(200);
    const left = await t.services.db
      .selectFrom('views')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('tag_id', '=', tag.id)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);

    expect(worst, `the longest the server could not answer anything, ms (${steps})`).toBeLessThanOrEqual(MAX_STALL_MS);
  }, 300_000);
});
