import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSignedIn, PASSWORD, signInHttp, type CookieJar } from '../dashboard/support.js';
import { UA, view } from '../analytics/support.js';
import { createAccount, createKey, request, runCli, startTestApp, type Account, type TestApp } from '../helpers/app.js';
import { Receiver } from '../helpers/receiver.js';
import { upload } from '../files/helpers.js';
import { createWebhook, deliveryEnv } from '../webhooks/support.js';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
const PERIOD = { start_date: '2026-03-01', end_date: '2026-03-31' };

/**
 * `tagsvc db copy` from a populated SQLite instance, while it runs, into a fresh PostgreSQL
 * schema; a server on the copy (same DATA_DIR for the files) answers every read as the source did.
 */
describe.skipIf(!TEST_DATABASE_URL)('tagsvc db copy', () => {
  const schema = `copy_${randomBytes(5).toString('hex')}`;
  let source: TestApp;
  let copy: TestApp | undefined;
  let receiver: Receiver;
  let owner: Account;
  let orgKey: string;
  let memberJar: CookieJar;
  let firstTagId: string;
  let shortIdOfFirstTag: string;
  const fileBytes = Buffer.from(randomBytes(20_000).toString('hex'));
  /** Every read compared: path → key that reads it. */
  const reads: Array<[string, string]> = [];

  beforeAll(async () => {
    receiver = await Receiver.start();
    source = await startTestApp({
      // The source is SQLite whatever TEST_DATABASE_URL says.
      // No worker: views wait in the inbox until a read ingests them, so the copy meets some there.
      env: { DATABASE_URL: '', DATABASE_SCHEMA: '', TRUST_PROXY: 'loopback', ...(await deliveryEnv()) },
    });
    await populate();
  }, 60_000);

  afterAll(async () => {
    await copy?.close();
    await source?.close();
    await receiver?.close();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    for (const name of [schema, `${schema}_b`]) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    await admin.end();
  });

  async function populate(): Promise<void> {
    owner = await createAccount(source, 'enterprise');
    const member = await createAccount(source, 'pro');
    const org = await accounts.createOrganization(source.services, OPERATOR, { name: 'Acme', ownerEmail: owner.email, plan: 'enterprise' });
    await accounts.addMember(source.services, OPERATOR, { organizationId: org.id, email: member.email, role: 'editor' });
    orgKey = (await createKey(source, owner.email, { organizationId: org.id })).key;
    const hook = await createWebhook(source, owner.key, { url: receiver.url, events: ['tag.created', 'tag.updated', 'file.uploaded'] });
    const parent = (await request(source, 'POST', '/v1/folders', { key: owner.key, body: { name: 'parent' } })).body.data.id as string;
    const child = (await request(source, 'POST', '/v1/folders', { key: owner.key, body: { name: 'child', parent_id: parent } })).body.data
      .id;
    const tagIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await request(source, 'POST', '/v1/tags', {
        key: owner.key,
        body: { title: `Tag ${i}`, folder_id: i === 0 ? child : parent, content: [{ type: 'text', content: `hello ${i}` }] },
      });
      expect(created.status, created.text).toBe(201);
      tagIds.push(created.body.data.id);
    }
    const orgTag = (await request(source, 'POST', '/v1/tags', { key: orgKey, body: { title: 'Org tag' } })).body.data;
    await request(source, 'PUT', `/v1/tags/${tagIds[1]}`, { key: owner.key, body: { title: 'Renamed' } });
    const uploaded = await upload(source, owner.key, tagIds[0]!, 'notes.txt', fileBytes);
    expect(uploaded.status, uploaded.text).toBe(201);
    const fileId = uploaded.body.data.id as string;
    await request(source, 'POST', `/v1/tags/${tagIds[0]}/analytics/shares`, { key: owner.key, body: {} });
    const shortIds = await Promise.all(
      tagIds.map(async (id) => (await request(source, 'GET', `/v1/tags/${id}`, { key: owner.key })).body.data.short_id as string),
    );
    const visits = [
      { at: '2026-03-03T10:00:00Z', visitor: 'v1', ip: '203.0.113.7', referer: 'https://news.example.org/a' },
      { at: '2026-03-03T11:30:00Z', visitor: 'v2', ip: '198.51.100.4', query: 'utm_source=newsletter&utm_medium=email' },
      { at: '2026-03-10T09:00:00Z', visitor: 'v1', ip: '203.0.113.7', ua: UA.iphone },
      { at: '2026-03-20T18:00:00Z', visitor: 'v3', ip: '192.0.2.1', scan: true },
    ];
    [firstTagId, shortIdOfFirstTag] = [tagIds[0]!, shortIds[0]!];
    for (const [i, v] of visits.entries()) await view(source, shortIds[i % shortIds.length]!, v);
    memberJar = await signInHttp(source, member.email, PASSWORD);
    for (const event of ['tag.created', 'file.uploaded', 'tag.updated']) {
      const delivered = await request(source, 'POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key, body: { event } });
      expect(delivered.body.data.status, delivered.text).toBe('success');
    }
    const analyticsQuery = new URLSearchParams(PERIOD).toString();
    reads.push(
      ['/v1/me', owner.key],
      ['/v1/tags?limit=100', owner.key],
      ['/v1/tags?limit=100', orgKey],
      ['/v1/folders', owner.key],
      [`/v1/tags/${orgTag.id}`, orgKey],
      [`/v1/files/${fileId}`, owner.key],
      ['/v1/webhooks', owner.key],
      [`/v1/webhooks/${hook.id}`, owner.key],
      [`/v1/webhooks/${hook.id}/deliveries`, owner.key],
      [`/v1/analytics/overview?${analyticsQuery}`, owner.key],
      [`/v1/analytics/export?${analyticsQuery}&format=json`, owner.key],
      [`/v1/tags/${tagIds[0]}/analytics/shares`, owner.key],
      ['/v1/audit-log?limit=100', owner.key],
    );
    for (const id of tagIds) {
      reads.push(
        [`/v1/tags/${id}`, owner.key],
        [`/v1/tags/${id}/files`, owner.key],
        [`/v1/tags/${id}/analytics?${analyticsQuery}&granularity=day`, owner.key],
        [`/v1/tags/${id}/analytics/views?${analyticsQuery}`, owner.key],
      );
    }
  }

  async function answers(t: TestApp): Promise<Record<string, unknown>> {
    const result: Record<string, unknown> = {};
    for (const [path, key] of reads) {
      const response = await request(t, 'GET', path, { key });
      expect(response.status, `${path}: ${response.text}`).toBe(200);
      result[`${key === orgKey ? 'org ' : ''}${path}`] = response.body;
    }
    return result;
  }

  const copyCommand = () => runCli(['db', 'copy', '--to', TEST_DATABASE_URL!, '--schema', schema, '--json'], source.env);

  it('copies every table while the source serves, and a server on the copy answers every read as the source did', async () => {
    const instant = source.clock.now();
    const before = await answers(source);
    expect(JSON.stringify(before)).toContain('newsletter');
    // Before the period compared: left in the view inbox, whose records PostgreSQL keeps as jsonb.
    await view(source, shortIdOfFirstTag, { at: '2026-02-15T08:00:00Z', visitor: 'v5', ip: '203.0.113.50' });
    source.clock.freeze(instant);
    const copied = await copyCommand();
    expect(copied.code, copied.stderr).toBe(0);
    const result = JSON.parse(copied.stdout);
    for (const table of [
      'users',
      'organization_members',
      'api_keys',
      'folders',
      'tags',
      'files',
      'webhooks',
      'deliveries',
      'views',
      'tag_daily',
      'sessions',
      'audit_log',
      'analytics_shares',
    ]) {
      expect(result.tables[table], table).toBeGreaterThan(0);
    }
    expect(result.rowsPerSecond).toBeGreaterThan(0);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      for (const [table, rows] of Object.entries(result.tables)) {
        const counted = await admin.query(`SELECT count(*)::int AS n FROM "${schema}"."${table}"`);
        expect(counted.rows[0].n, table).toBe(rows);
      }
    } finally {
      await admin.end();
    }

    copy = await startTestApp({
      env: {
        DATA_DIR: source.config.dataDir,
        SECRET_KEY: source.env.SECRET_KEY!,
        DATABASE_URL: TEST_DATABASE_URL!,
        DATABASE_SCHEMA: schema,
        TRUST_PROXY: 'loopback',
      },
    });
    // Signed preview addresses and session lifetimes are reckoned from the clock: the same instant on both.
    copy.clock.freeze(instant);
    expect(await answers(copy)).toEqual(before);
    const february = `/v1/tags/${firstTagId}/analytics?start_date=2026-02-01&end_date=2026-02-28`;
    const februaryOnCopy = await request(copy, 'GET', february, { key: owner.key });
    expect(februaryOnCopy.body.data.summary.total_views).toBe(1);
    expect(februaryOnCopy.body).toEqual((await request(source, 'GET', february, { key: owner.key })).body);
    const [fileId] = reads
      .find(([path]) => path.startsWith('/v1/files/'))![0]
      .split('/')
      .slice(-1);
    const download = await request(copy, 'GET', `/v1/files/${fileId}/download`, { key: owner.key });
    expect(download.status).toBe(200);
    expect(download.raw.equals(fileBytes)).toBe(true);
  });

  it('keeps sessions: a dashboard sign-in made on the source is signed in on the copy', async () => {
    expect(await isSignedIn(copy!, memberJar)).toBe(true);
  });

  it('continues identities: new tags, visitors and views on the copy are recorded beside the copied ones', async () => {
    const created = await request(copy!, 'POST', '/v1/tags', { key: owner.key, body: { title: 'After the move' } });
    expect(created.status, created.text).toBe(201);
    const shortId = created.body.data.short_id as string;
    await view(copy!, shortId, { at: '2026-03-25T12:00:00Z', visitor: 'v9', ip: '203.0.113.99' });
    const overview = await request(copy!, 'GET', `/v1/analytics/overview?${new URLSearchParams(PERIOD).toString()}`, { key: owner.key });
    expect(overview.body.data.totals.views).toBe(5);
  });

  it('refuses a target that already holds data, and changes nothing in it', async () => {
    const again = await copyCommand();
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr).error.message).toMatch(/already holds data/);
    const listed = await request(copy!, 'GET', '/v1/tags?limit=100', { key: owner.key });
    expect(listed.body.pagination.total).toBe(4);
  });

  it('stops at a table it does not know how to copy, naming it', async () => {
    await sql`CREATE TABLE stray (x integer)`.execute(source.database.db);
    try {
      const result = await runCli(['db', 'copy', '--to', TEST_DATABASE_URL!, '--schema', `${schema}_b`, '--json'], source.env);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stderr).error.message).toMatch(/table stray .*does not know how to copy/);
    } finally {
      await sql`DROP TABLE stray`.execute(source.database.db);
    }
  });
});
