import { describe, expect, it } from 'vitest';
import { createAccount, expectError, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

describe('folders', () => {
  const t = useApp();
  const alice = useAccount(t);
  const bob = useAccount(t);

  const folder = (body: unknown, key = alice.key) => request(t, 'POST', '/v1/folders', { key, body });

  it('creates, reads, renames, moves and deletes a folder', async () => {
    const created = await folder({ name: ' Projects ' });
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(Object.keys(data).sort()).toEqual(['created_at', 'id', 'name', 'parent_id', 'updated_at']);
    expect(data.id).toMatch(/^fld_[0-9a-z]{26}$/);
    expect(data).toMatchObject({ name: 'Projects', parent_id: null });
    expect((await request(t, 'GET', `/v1/folders/${data.id}`, { key: alice.key })).body.data).toEqual(data);

    const child = (await folder({ name: 'Child', parent_id: data.id })).body.data;
    expect(child.parent_id).toBe(data.id);
    const renamed = await request(t, 'PATCH', `/v1/folders/${child.id}`, { key: alice.key, body: { name: 'Renamed', parent_id: null } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: child.id, name: 'Renamed', parent_id: null });

    const deleted = await request(t, 'DELETE', `/v1/folders/${child.id}`, { key: alice.key });
    expect(deleted.body).toEqual({ success: true, message: 'Folder deleted' });
    expectError(await request(t, 'GET', `/v1/folders/${child.id}`, { key: alice.key }), 404, 'not_found');
  });

  it('lists own folders with pagination and the parent filter', async () => {
    const owner = await createAccount(t);
    const root = (await folder({ name: 'root' }, owner.key)).body.data;
    for (const name of ['a', 'b', 'c']) await folder({ name, parent_id: root.id }, owner.key);
    const all = await request(t, 'GET', '/v1/folders?limit=2', { key: owner.key });
    expect(all.body.pagination).toEqual({ total: 4, limit: 2, offset: 0, has_more: true });
    const children = await request(t, 'GET', `/v1/folders?parent_id=${root.id}`, { key: owner.key });
    expect(children.body.data.map((f: { name: string }) => f.name)).toEqual(['a', 'b', 'c']);
  });

  it('refuses cycles, foreign parents and bad names', async () => {
    const a = (await folder({ name: 'a' })).body.data;
    const b = (await folder({ name: 'b', parent_id: a.id })).body.data;
    expectError(
      await request(t, 'PATCH', `/v1/folders/${a.id}`, { key: alice.key, body: { parent_id: b.id } }),
      400,
      'validation_error',
      'parent_id',
    );
    expectError(
      await request(t, 'PATCH', `/v1/folders/${a.id}`, { key: alice.key, body: { parent_id: a.id } }),
      400,
      'validation_error',
      'parent_id',
    );
    const bobs = (await folder({ name: 'bob' }, bob.key)).body.data;
    expectError(await folder({ name: 'x', parent_id: bobs.id }), 400, 'validation_error', 'parent_id');
    expectError(await folder({ name: '  ' }), 400, 'validation_error', 'name');
    expectError(await folder({ name: 'x'.repeat(256) }), 400, 'validation_error', 'name');
    expectError(await folder({ name: '<script>a\u0000' }), 400, 'validation_error', 'name');
    expectError(await folder({}), 400, 'validation_error', 'name');
  });

  it('refuses to delete a folder that still holds tags or folders', async () => {
    const box = (await folder({ name: 'box' })).body.data;
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'inside', folder_id: box.id } })).body.data;
    expectError(await request(t, 'DELETE', `/v1/folders/${box.id}`, { key: alice.key }), 400, 'invalid_request');
    await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: alice.key });
    const inner = (await folder({ name: 'inner', parent_id: box.id })).body.data;
    expectError(await request(t, 'DELETE', `/v1/folders/${box.id}`, { key: alice.key }), 400, 'invalid_request');
    await request(t, 'DELETE', `/v1/folders/${inner.id}`, { key: alice.key });
    expect((await request(t, 'DELETE', `/v1/folders/${box.id}`, { key: alice.key })).status).toBe(200);
  });

  it('keeps accounts apart: 403 for another account’s folder, 404 for none', async () => {
    const mine = (await folder({ name: 'mine' })).body.data;
    expectError(await request(t, 'GET', `/v1/folders/${mine.id}`, { key: bob.key }), 403, 'forbidden');
    expectError(await request(t, 'PATCH', `/v1/folders/${mine.id}`, { key: bob.key, body: { name: 'x' } }), 403, 'forbidden');
    expectError(await request(t, 'DELETE', `/v1/folders/${mine.id}`, { key: bob.key }), 403, 'forbidden');
    expectError(
      await request(t, 'POST', '/v1/tags', { key: bob.key, body: { title: 'x', folder_id: mine.id } }),
      400,
      'validation_error',
      'folder_id',
    );
    expectError(await request(t, 'GET', `/v1/tags?folder=${mine.id}`, { key: bob.key }), 400, 'validation_error', 'folder');
    expectError(await request(t, 'GET', '/v1/folders/fld_01m802r69tb18dkd20f3k82y80', { key: bob.key }), 404, 'not_found');
    const bobsList = await request(t, 'GET', '/v1/folders', { key: bob.key });
    expect(bobsList.body.data.find((f: { id: string }) => f.id === mine.id)).toBeUndefined();
  });
});
