import { describe, expect, it } from 'vitest';
import type { AuditLogTable } from '../../src/db/schema.js';
import { auditLogCsv, listAuditLog, type AuditQuery } from '../../src/features/audit/index.js';
import { actorOf, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/**
 * A log larger than a step of a read (reads go through it in stretches, the thread given back
 * between them): the totals, pages, filters and CSV are what one query over the whole log gives.
 */
const t = useApp();
const alice = useAccount(t, 'enterprise');
const neighbour = useAccount(t, 'enterprise');

const ENTRIES = 4500;
const ACTORS = ['ci', 'deploy', 'alice'];
const ACTIONS = ['tag.updated', 'tag.created', 'folder.updated'];

/** Three entries a millisecond, so stretches end between entries of the same time (ties by id). */
function entry(ownerId: string, i: number): AuditLogTable {
  return {
    id: `aud_${ownerId.slice(-6)}${String(i).padStart(20, '0')}`,
    created_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString(),
    organization_id: null,
    owner_id: ownerId,
    environment: i % 5 === 0 ? 'test' : i % 5 === 1 ? null : 'live',
    actor_type: 'key',
    actor_id: `key_${ACTORS[i % ACTORS.length]}`,
    actor_name: ACTORS[i % ACTORS.length]!,
    action: i === 2 || i === 4499 ? 'key.disabled' : ACTIONS[i % ACTIONS.length]!,
    target_id: `tag_${i}`,
    ip: null,
    request_id: null,
    details: null,
  };
}

async function fill(ownerId: string) {
  for (let i = 0; i < ENTRIES; i += 500) {
    const rows = Array.from({ length: 500 }, (_, j) => entry(ownerId, i + j));
    await t.database.db.insertInto('audit_log').values(rows).execute();
  }
}

/** The workspace's whole log, newest first, in one query: what the stepwise reads must agree with. */
const wholeLog = () =>
  t.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('owner_id', '=', alice.userId)
    .where('organization_id', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();

const read = (query: AuditQuery & { limit: number; offset: number }) =>
  listAuditLog(t.services, { ...actorOf(alice, 'enterprise'), permissions: [] }, query);

describe('reading a log larger than a step', () => {
  it('counts every entry and finds any page, across the ends of stretches', async () => {
    await fill(alice.userId);
    await fill(neighbour.userId);
    const all = await wholeLog();
    expect(all.length).toBeGreaterThan(ENTRIES);
    const ids = all.map((row) => row.id);
    for (const offset of [0, 1990, 1999, 2000, 3995, all.length - 7, all.length]) {
      const { total, entries } = await read({ limit: 20, offset });
      expect(total).toBe(all.length);
      expect(entries.map((e) => e.id)).toEqual(ids.slice(offset, offset + 20));
    }
  });

  it('filters by actor, action and dates, with the total of the matches', async () => {
    const all = await wholeLog();
    const cases: Array<[AuditQuery, (row: AuditLogTable) => boolean]> = [
      [{ actor: 'deploy' }, (row) => row.actor_name === 'deploy'],
      [{ actor: 'key_ci' }, (row) => row.actor_id === 'key_ci'],
      [{ action: 'key.disabled' }, (row) => row.action === 'key.disabled'],
      [{ from: '2026-01-02', to: '2026-01-02' }, (row) => row.created_at.startsWith('2026-01-02')],
      [
        { from: '2026-01-01T20:00:00.000Z', to: '2026-01-03T01:00:00Z', action: 'tag.created' },
        (row) =>
          row.created_at >= '2026-01-01T20:00:00.000Z' && row.created_at < '2026-01-03T01:00:00.000Z' && row.action === 'tag.created',
      ],
    ];
    for (const [query, matches] of cases) {
      const expected = all.filter(matches).map((row) => row.id);
      expect(expected.length).toBeGreaterThan(0);
      for (const offset of [0, 650, expected.length - 3]) {
        const { total, entries } = await read({ ...query, limit: 100, offset: Math.max(0, offset) });
        expect(total, JSON.stringify(query)).toBe(expected.length);
        expect(entries.map((e) => e.id)).toEqual(expected.slice(Math.max(0, offset), Math.max(0, offset) + 100));
      }
    }
  });

  it('gives an API key its environment’s entries, counted across stretches', async () => {
    const live = (await wholeLog()).filter((row) => row.environment !== 'test');
    const page = await request(t, 'GET', '/v1/audit-log?limit=100&offset=1950', { key: alice.key });
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ total: live.length, limit: 100, offset: 1950, has_more: true });
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual(live.slice(1950, 2050).map((row) => row.id));
  });

  it('downloads every entry the filters match as CSV, once each, newest first', async () => {
    const all = await wholeLog();
    const reader = { ...actorOf(alice, 'enterprise'), permissions: [] };
    const text = async (query: AuditQuery) => {
      let csv = '';
      for await (const chunk of await auditLogCsv(t.services, reader, query)) csv += chunk;
      return csv.trimEnd().split('\n').slice(1);
    };
    const lines = await text({});
    expect(lines).toHaveLength(all.length);
    expect(lines.map((line) => line.split(',')[5])).toEqual(all.map((row) => row.target_id ?? ''));
    const deploy = await text({ actor: 'deploy' });
    expect(deploy.map((line) => line.split(',')[5])).toEqual(all.filter((row) => row.actor_name === 'deploy').map((row) => row.target_id));
  });
});
