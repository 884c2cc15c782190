import { EventEmitter, once } from 'node:events';
import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, readSnapshot } from '../../src/db/database.js';
import { OTHER_PROCESS_CHANGE_DELAY_MS } from '../../src/perf/exact-cache.js';
import { createAccount, request, type ApiResponse } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/**
 * GET /v1/tags/{id} and GET /v1/me send bodies serialized once per cached row or key
 * (perf/serialized-bodies.ts). A change committed by another process (the CLI, a second
 * instance) must show all the same: on PostgreSQL on the next request, on SQLite once
 * OTHER_PROCESS_CHANGE_DELAY_MS has passed (the caches read data_version at most that often).
 */
describe('bodies kept with cached rows', () => {
  /** Emits 'request' as each request arrives, before its key is looked up. */
  const arrivals = new EventEmitter();
  const t = useApp({
    extend: (app) => {
      app.addHook('onRequest', (_request, _reply, done) => {
        arrivals.emit('request');
        done();
      });
    },
  });
  const alice = useAccount(t);

  /** Runs `change` on a connection of its own, as another process would. */
  async function elsewhere(change: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<unknown>) {
    const other = await openDatabase(t.config);
    try {
      await change(other.db);
    } finally {
      await other.close();
    }
  }

  /** The longest another process's commit may go unseen (0 on PostgreSQL, whose feed is exact). */
  const changeSeen = () => sleep(t.database.dialect === 'sqlite' ? OTHER_PROCESS_CHANGE_DELAY_MS : 0);

  it('serves a tag changed by another connection within the change delay', async () => {
    const created = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Before' } });
    expect(created.status).toBe(201);
    const path = `/v1/tags/${created.body.data.id}`;
    // Twice, so the second answer is the kept body.
    for (let i = 0; i < 2; i++) expect((await request(t, 'GET', path, { key: alice.key })).body.data.title).toBe('Before');

    await elsewhere((db) => db.updateTable('tags').set({ title: 'Changed elsewhere' }).where('id', '=', created.body.data.id).execute());
    await changeSeen();
    const after = await request(t, 'GET', path, { key: alice.key });
    expect(after.body.data).toEqual({ ...created.body.data, title: 'Changed elsewhere' });
  });

  it('serves the key’s account changed by another connection within the change delay', async () => {
    for (let i = 0; i < 2; i++) expect((await request(t, 'GET', '/v1/me', { key: alice.key })).body.data.plan).toBe('pro');

    await elsewhere((db) => db.updateTable('users').set({ plan: 'enterprise' }).where('id', '=', alice.userId).execute());
    await changeSeen();
    const after = await request(t, 'GET', '/v1/me', { key: alice.key });
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({ id: alice.userId, email: alice.email, plan: 'enterprise' });
  });

  it('a key disabled by another connection while a report holds its read snapshot is refused at once', async () => {
    const bob = await createAccount(t);
    for (let i = 0; i < 2; i++) expect((await request(t, 'GET', '/v1/me', { key: bob.key })).status).toBe(200);
    let during: Promise<ApiResponse> | undefined;
    await readSnapshot(t.database.db, async (db) => {
      // The snapshot starts with its first read; on SQLite, data_version stands still after it.
      await db.selectFrom('users').select('id').limit(1).execute();
      await elsewhere((other) => other.updateTable('api_keys').set({ enabled: 0 }).where('user_id', '=', bob.userId).execute());
      const arrived = once(arrivals, 'request');
      during = request(t, 'GET', '/v1/me', { key: bob.key });
      // Once it has arrived, its key lookup runs in the promise jobs that follow (the snapshot
      // still open): whether the cache answers or the database must, it has been decided.
      await arrived;
      await setImmediate();
    });
    expect((await during!).status).toBe(401);
  });
});
