import { describe, expect, it } from 'vitest';
import { createKey, request, runCli, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { csrfOf, get, post, signInHttp, CookieJar } from '../dashboard/support.js';

/** Every entry of the log, oldest first. */
const allEntries = (t: TestApp) => t.database.db.selectFrom('audit_log').selectAll().orderBy('created_at').orderBy('id').execute();

/** The entries written while `act` ran: what one door's requests recorded. */
async function recordedBy(t: TestApp, act: () => Promise<void>) {
  const before = new Set((await allEntries(t)).map((entry) => entry.id));
  await act();
  return (await allEntries(t)).filter((entry) => !before.has(entry.id));
}

const t = useApp();
const alice = useAccount(t, 'pro');

describe('the API', () => {
  it('records one entry per change, with the key, the request and the masked address; none for reads', async () => {
    let tagId = '';
    const requestIds: string[] = [];
    const changes = await recordedBy(t, async () => {
      const created = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Lobby' } });
      expect(created.status).toBe(201);
      tagId = created.body.data.id;
      const updated = await request(t, 'PUT', `/v1/tags/${tagId}`, { key: alice.key, body: { title: 'Lobby, east' } });
      expect(updated.status).toBe(200);
      requestIds.push(created.headers.get('x-request-id')!, updated.headers.get('x-request-id')!);
    });
    expect(changes.map((entry) => entry.action)).toEqual(['tag.created', 'tag.updated']);
    expect(changes[0]).toMatchObject({
      actor_type: 'key',
      actor_name: 'default',
      target_id: tagId,
      owner_id: alice.userId,
      organization_id: null,
      environment: 'live',
      ip: '127.0.0.0',
      request_id: requestIds[0],
    });
    expect(changes[0]!.actor_id).toMatch(/^key_/);
    expect(changes[1]!.request_id).toBe(requestIds[1]);
    expect(JSON.parse(changes[1]!.details!)).toEqual({ fields: 'title' });

    const reads = await recordedBy(t, async () => {
      expect((await request(t, 'GET', `/v1/tags/${tagId}`, { key: alice.key })).status).toBe(200);
      expect((await request(t, 'GET', '/v1/tags', { key: alice.key })).status).toBe(200);
      expect((await request(t, 'GET', '/v1/me', { key: alice.key })).status).toBe(200);
    });
    expect(reads).toEqual([]);

    const deleted = await recordedBy(t, async () => {
      expect((await request(t, 'DELETE', `/v1/tags/${tagId}`, { key: alice.key })).status).toBe(200);
    });
    expect(deleted.map((entry) => [entry.action, entry.target_id])).toEqual([['tag.deleted', tagId]]);
  });

  it('records nothing for a change that was refused', async () => {
    const refused = await recordedBy(t, async () => {
      expect((await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: '' } })).status).toBe(400);
    });
    expect(refused).toEqual([]);
  });
});

describe('the dashboard', () => {
  it('records the sign-in, each change and the sign-out as the user; none for pages read', async () => {
    let jar = new CookieJar();
    const signedIn = await recordedBy(t, async () => {
      jar = await signInHttp(t, alice.email);
    });
    expect(signedIn).toMatchObject([
      { action: 'user.signed_in', actor_type: 'user', actor_id: alice.userId, target_id: alice.userId, ip: '127.0.0.0' },
    ]);
    expect(signedIn[0]!.request_id).toMatch(/^req_/);

    const reads = await recordedBy(t, async () => {
      for (const path of ['/dashboard', '/dashboard/tags', '/dashboard/folders', '/dashboard/keys']) {
        expect((await get(t, path, jar)).status).toBe(200);
      }
    });
    expect(reads).toEqual([]);

    const changes = await recordedBy(t, async () => {
      const page = await get(t, '/dashboard/folders', jar);
      const created = await post(t, '/dashboard/folders', jar, { _csrf: csrfOf(page), name: 'Reception' });
      expect(created.status).toBe(303);
    });
    expect(changes).toMatchObject([{ action: 'folder.created', actor_type: 'user', actor_name: alice.email, owner_id: alice.userId }]);
    expect(changes[0]!.target_id).toMatch(/^fld_/);

    const signedOut = await recordedBy(t, async () => {
      const page = await get(t, '/dashboard', jar);
      expect((await post(t, '/dashboard/logout', jar, { _csrf: csrfOf(page) })).status).toBe(303);
    });
    expect(signedOut).toMatchObject([{ action: 'user.signed_out', actor_id: alice.userId }]);
  });

  it('records a failed sign-in in the account’s log, and one for an unknown address without the address', async () => {
    const failed = await recordedBy(t, async () => {
      const jar = new CookieJar();
      const form = await get(t, '/dashboard/login', jar);
      await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email: alice.email, password: 'not the password' });
      await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email: 'nobody@example.com', password: 'whatever it is' });
    });
    expect(failed).toMatchObject([
      { action: 'user.sign_in_failed', actor_type: 'anonymous', target_id: alice.userId, owner_id: alice.userId, ip: '127.0.0.0' },
      { action: 'user.sign_in_failed', actor_type: 'anonymous', target_id: null, owner_id: null, organization_id: null, ip: '127.0.0.0' },
    ]);
    expect(JSON.parse(failed[1]!.details!)).toEqual({ reason: 'unknown_email' });
    expect(JSON.stringify(failed)).not.toContain('nobody@example.com');
  });
});

describe('the command line', () => {
  it('records each change as the operator, without a request or an address; none for a listing', async () => {
    const key = await createKey(t, alice.email, { name: 'cli target' });
    const changes = await recordedBy(t, async () => {
      const result = await runCli(['key', 'disable', '--id', key.id, '--json'], t.env);
      expect(result.code, result.stderr).toBe(0);
    });
    expect(changes).toMatchObject([
      {
        action: 'key.disabled',
        actor_type: 'operator',
        actor_id: null,
        target_id: key.id,
        owner_id: alice.userId,
        ip: null,
        request_id: null,
      },
    ]);
    const reads = await recordedBy(t, async () => {
      expect((await runCli(['key', 'list', '--email', alice.email, '--json'], t.env)).code).toBe(0);
    });
    expect(reads).toEqual([]);
  });
});
