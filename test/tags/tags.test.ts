import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createKey, expectError, PUBLIC_BASE_URL, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('tags', () => {
  const t = useApp();
  const alice = useAccount(t);

  const create = (body: unknown, key = alice.key) => request(t, 'POST', '/v1/tags', { key, body });

  describe('POST /v1/tags', () => {
    it('creates a tag from a permissions object and block array, returning every field', async () => {
      const response = await create({
        title: '  Welcome  ',
        content: [
          { type: 'text', content: 'Hello', format: { bold: true, italic: false } },
          { type: 'heading', content: 'Section', level: 2 },
          { type: 'callout', content: 'Careful', style: 'warning' },
          { type: 'html', content: '<p>Hi <strong>there</strong></p>' },
          { type: 'link', url: 'https://example.com/docs', label: 'Docs' },
          { type: 'divider' },
        ],
        permissions: { read: 'public', write: 'owner' },
      });
      expect(response.status).toBe(201);
      const tag = response.body.data;
      expect(Object.keys(tag).sort()).toEqual(
        [
          'access_logging',
          'content',
          'created_at',
          'folder_id',
          'id',
          'owner',
          'permissions',
          'public_qr_url',
          'qr_url',
          'short_id',
          'title',
          'updated_at',
          'url',
          'status',
          'publish_at',
          'expires_at',
          'max_views',
          'expired_url',
          'password_protected',
          'theme',
          'preview_url',
        ].sort(),
      );
      expect(tag.id).toMatch(/^tag_[0-9a-z]{26}$/);
      expect(tag.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
      expect(tag.title).toBe('Welcome');
      expect(tag.created_at).toMatch(ISO);
      expect(tag.updated_at).toBe(tag.created_at);
      expect(tag.qr_url).toBe(`${PUBLIC_BASE_URL}/v1/tags/${tag.id}/qr`);
      expect(tag.public_qr_url).toBe(`${PUBLIC_BASE_URL}/t/${tag.short_id}/qr.svg`);
      expect(tag.url).toBe(`${PUBLIC_BASE_URL}/t/${tag.short_id}`);
      expect(tag.owner).toEqual({ id: alice.userId, email: alice.email });
      expect(tag.permissions).toEqual({ read: 'public', write: 'owner' });
      expect(tag.folder_id).toBeNull();
      expect(tag.access_logging).toBe(false);
      const ids = tag.content.map((b: { id: string }) => b.id);
      // Image blocks need an image file of the tag, so they come with PUT (test/files/files.test.ts).
      expect(new Set(ids).size).toBe(6);
      for (const id of ids) expect(id).toMatch(/^blk_[0-9a-z]{26}$/);
      expect(tag.content.map(({ id: _id, ...rest }: { id: string }) => rest)).toEqual([
        { type: 'text', content: 'Hello', format: { bold: true, italic: false } },
        { type: 'heading', content: 'Section', level: 2 },
        { type: 'callout', content: 'Careful', style: 'warning' },
        { type: 'html', content: '<p>Hi <strong>there</strong></p>' },
        { type: 'link', url: 'https://example.com/docs', label: 'Docs' },
        { type: 'divider' },
      ]);
    });

    it('applies defaults: public/owner, callout style info, format off, empty content', async () => {
      const response = await create({
        title: 'Defaults',
        content: [
          { type: 'callout', content: 'x' },
          { type: 'text', content: 'y' },
        ],
      });
      const tag = response.body.data;
      expect(tag.permissions).toEqual({ read: 'public', write: 'owner' });
      expect(tag.content[0].style).toBe('info');
      expect(tag.content[1].format).toEqual({ bold: false, italic: false });
      expect((await create({ title: 'Empty' })).body.data.content).toEqual([]);
    });

    it('accepts the alternative shape: readPermission/writePermission and an HTML string', async () => {
      const response = await create({
        title: 'Alt',
        readPermission: 'private',
        writePermission: 'owner',
        content: '<h2>Hi</h2><p onclick="x()">there</p>',
      });
      expect(response.status).toBe(201);
      const tag = response.body.data;
      expect(tag.permissions).toEqual({ read: 'private', write: 'owner' });
      expect(tag.content).toHaveLength(1);
      expect(tag.content[0]).toMatchObject({ type: 'html', content: '<h2>Hi</h2><p>there</p>' });
      const fetched = await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key });
      expect(fetched.body.data.content).toEqual(tag.content);
      expect(fetched.body.data.permissions).toEqual({ read: 'private', write: 'owner' });
    });

    it('refuses both shapes for the same permission', async () => {
      expectError(
        await create({ title: 'x', permissions: { read: 'public' }, readPermission: 'private' }),
        400,
        'validation_error',
        'readPermission',
      );
      expectError(
        await create({ title: 'x', permissions: { write: 'owner' }, writePermission: 'owner' }),
        400,
        'validation_error',
        'writePermission',
      );
    });

    it.each([
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: 'x'.repeat(256) }, 'title'],
      // A NUL reached the public page as a raw byte (and PostgreSQL refuses it); a bidi override disguises text.
      [{ title: 'nul\u0000title' }, 'title'],
      [{ title: 'bell\u0007' }, 'title'],
      [{ title: 'two\nlines' }, 'title'],
      [{ title: 'abc\u202Efed' }, 'title'],
      [{ title: 7 }, 'title'],
      [{ title: 'x', content: 5 }, 'content'],
      [{ title: 'x', content: [{ type: 'video' }] }, 'content[0].type'],
      [
        {
          title: 'x',
          content: [{ type: 'text', content: 'a' }, { type: 'text', content: 'b' }, { type: 'text', content: 'c' }, { content: 'd' }],
        },
        'content[3].type',
      ],
      [{ title: 'x', content: [{ type: 'heading', content: 'h' }] }, 'content[0].level'],
      [
        {
          title: 'x',
          content: [
            { type: 'text', content: 'a' },
            { type: 'heading', content: 'h', level: 7 },
          ],
        },
        'content[1].level',
      ],
      [{ title: 'x', content: [{ type: 'heading', content: 'h', level: 1.5 }] }, 'content[0].level'],
      [{ title: 'x', content: [{ type: 'callout', content: 'c', style: 'loud' }] }, 'content[0].style'],
      [{ title: 'x', content: [{ type: 'text' }] }, 'content[0].content'],
      [{ title: 'x', content: [{ type: 'text', content: 5 }] }, 'content[0].content'],
      [{ title: 'x', content: [{ type: 'text', content: 'x'.repeat(20_001) }] }, 'content[0].content'],
      [{ title: 'x', content: [{ type: 'text', content: 'a', format: { bold: 'yes' } }] }, 'content[0].format.bold'],
      [{ title: 'x', content: [{ type: 'text', content: 'a', format: { underline: true } }] }, 'content[0].format.underline'],
      [{ title: 'x', content: [{ type: 'text', content: 'a', level: 2 }] }, 'content[0].level'],
      [{ title: 'x', content: [{ type: 'link', url: 'javascript:alert(1)' }] }, 'content[0].url'],
      [{ title: 'x', content: [{ type: 'link', label: 'no url' }] }, 'content[0].url'],
      [{ title: 'x', content: [{ type: 'image', file_id: 'nope' }] }, 'content[0].file_id'],
      [{ title: 'x', content: ['text'] }, 'content[0]'],
      [{ title: 'x', content: 'x'.repeat(20_001) }, 'content'],
      [{ title: 'x', permissions: { read: 'everyone' } }, 'permissions.read'],
      [{ title: 'x', permissions: { write: 'public' } }, 'permissions.write'],
      [{ title: 'x', permissions: { read: 'organization' } }, 'permissions.read'],
      [{ title: 'x', readPermission: 'nobody' }, 'readPermission'],
      [{ title: 'x', folder_id: 'fld_01m802r69tb18dkd20f3k82y80' }, 'folder_id'],
      [{ title: 'x', color: 'red' }, 'color'],
    ])('rejects %j naming field %s', async (body, field) => {
      expectError(await create(body), 400, 'validation_error', field);
    });

    it('counts characters as people do: 255 emoji make a title, 20,000 a text block (each is two UTF-16 units)', async () => {
      expect((await create({ title: '😀'.repeat(255), content: [{ type: 'text', content: '😀'.repeat(20_000) }] })).status).toBe(201);
      expectError(await create({ title: '😀'.repeat(256) }), 400, 'validation_error', 'title');
      expectError(
        await create({ title: 'x', content: [{ type: 'text', content: '😀'.repeat(20_001) }] }),
        400,
        'validation_error',
        'content[0].content',
      );
    });

    it('accepts 500 blocks and refuses 501', async () => {
      const blocks = (n: number) => Array.from({ length: n }, () => ({ type: 'divider' }));
      expect((await create({ title: 'many', content: blocks(500) })).status).toBe(201);
      expectError(await create({ title: 'too many', content: blocks(501) }), 400, 'validation_error', 'content');
    });
  });

  describe('GET /v1/tags/{id}', () => {
    it('finds a tag by long id and by short id with the same body', async () => {
      const created = (await create({ title: 'Find me', content: [{ type: 'text', content: 'x' }] })).body.data;
      const byId = await request(t, 'GET', `/v1/tags/${created.id}`, { key: alice.key });
      const byShort = await request(t, 'GET', `/v1/tags/${created.short_id}`, { key: alice.key });
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual({ success: true, data: created });
      expect(byShort.body).toEqual(byId.body);
    });

    it('answers 404 for ids that do not exist', async () => {
      expectError(await request(t, 'GET', '/v1/tags/tag_01m802r69tb18dkd20f3k82y80', { key: alice.key }), 404, 'not_found');
      expectError(await request(t, 'GET', '/v1/tags/ZZZZZZZZ', { key: alice.key }), 404, 'not_found');
      expectError(await request(t, 'GET', '/v1/tags/whatever', { key: alice.key }), 404, 'not_found');
    });
  });

  describe('PUT /v1/tags/{id}', () => {
    it('keeps omitted fields, replaces content, keeps the ids of blocks sent back', async () => {
      const created = (
        await create({
          title: 'Before',
          content: [
            { type: 'text', content: 'one' },
            { type: 'text', content: 'two' },
          ],
          permissions: { read: 'public', write: 'owner' },
        })
      ).body.data;
      const [one, two] = created.content;
      t.clock.advance(1000);
      const updated = await request(t, 'PUT', `/v1/tags/${created.short_id}`, {
        key: alice.key,
        body: {
          content: [
            { id: two.id, type: 'text', content: 'two, edited' },
            { id: 'blk_made_up', type: 'divider' },
          ],
        },
      });
      expect(updated.status).toBe(200);
      const tag = updated.body.data;
      expect(tag.title).toBe('Before');
      expect(tag.permissions).toEqual({ read: 'public', write: 'owner' });
      expect(tag.content).toHaveLength(2);
      expect(tag.content[0]).toEqual({ id: two.id, type: 'text', content: 'two, edited', format: { bold: false, italic: false } });
      expect(tag.content[1].id).not.toBe('blk_made_up');
      expect(tag.content[1].id).not.toBe(one.id);
      expect(tag.created_at).toBe(created.created_at);
      expect(new Date(tag.updated_at).getTime()).toBeGreaterThan(new Date(created.updated_at).getTime());

      const retitled = await request(t, 'PUT', `/v1/tags/${created.id}`, {
        key: alice.key,
        body: { title: 'After', readPermission: 'private' },
      });
      expect(retitled.body.data.title).toBe('After');
      expect(retitled.body.data.content).toEqual(tag.content);
      expect(retitled.body.data.permissions).toEqual({ read: 'private', write: 'owner' });
      expect((await request(t, 'GET', `/v1/tags/${created.id}`, { key: alice.key })).body.data).toEqual(retitled.body.data);
    });

    it('an existing block id sent twice (a block copied in a client): the first keeps it, the copy gets its own', async () => {
      const created = (await create({ title: 'Twice', content: [{ type: 'text', content: 'one' }] })).body.data;
      const id = created.content[0].id;
      const twice = await request(t, 'PUT', `/v1/tags/${created.id}`, {
        key: alice.key,
        body: {
          content: [
            { id, type: 'text', content: 'a' },
            { id, type: 'text', content: 'b' },
          ],
        },
      });
      expect(twice.status, twice.text).toBe(200);
      const [first, copy] = twice.body.data.content;
      expect(first).toMatchObject({ id, content: 'a' });
      expect(copy.id).toMatch(/^blk_[0-9a-z]{26}$/);
      expect(copy.id).not.toBe(id);
      expect(
        (await request(t, 'GET', `/v1/tags/${created.id}`, { key: alice.key })).body.data.content.map((b: { id: string }) => b.id),
      ).toEqual([id, copy.id]);
    });
    it('moves a tag into and out of a folder and toggles access logging', async () => {
      const folder = (await request(t, 'POST', '/v1/folders', { key: alice.key, body: { name: 'Box' } })).body.data;
      const created = (await create({ title: 'Movable' })).body.data;
      const moved = await request(t, 'PUT', `/v1/tags/${created.id}`, {
        key: alice.key,
        body: { folder_id: folder.id, access_logging: true },
      });
      expect(moved.body.data.folder_id).toBe(folder.id);
      expect(moved.body.data.access_logging).toBe(true);
      const out = await request(t, 'PUT', `/v1/tags/${created.id}`, { key: alice.key, body: { folder_id: null } });
      expect(out.body.data.folder_id).toBeNull();
      expect(out.body.data.access_logging).toBe(true);
    });

    it('validates like create', async () => {
      const created = (await create({ title: 'Valid' })).body.data;
      const put = (body: unknown) => request(t, 'PUT', `/v1/tags/${created.id}`, { key: alice.key, body });
      expectError(await put({ title: '' }), 400, 'validation_error', 'title');
      expectError(await put({ title: 'nul\u0000title' }), 400, 'validation_error', 'title');
      expectError(await put({ content: [{ type: 'heading', content: 'x', level: 0 }] }), 400, 'validation_error', 'content[0].level');
      expectError(await put({ owner: 'me' }), 400, 'validation_error', 'owner');
      expect((await request(t, 'GET', `/v1/tags/${created.id}`, { key: alice.key })).body.data.title).toBe('Valid');
    });

    it('answers 404 for an unknown tag', async () => {
      expectError(
        await request(t, 'PUT', '/v1/tags/tag_01m802r69tb18dkd20f3k82y80', { key: alice.key, body: { title: 'x' } }),
        404,
        'not_found',
      );
    });
  });

  describe('DELETE /v1/tags/{id}', () => {
    it('deletes for good and answers with a message', async () => {
      const created = (await create({ title: 'Doomed' })).body.data;
      const response = await request(t, 'DELETE', `/v1/tags/${created.short_id}`, { key: alice.key });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, message: 'Tag deleted' });
      expectError(await request(t, 'GET', `/v1/tags/${created.id}`, { key: alice.key }), 404, 'not_found');
      expectError(await request(t, 'DELETE', `/v1/tags/${created.id}`, { key: alice.key }), 404, 'not_found');
    });

    it('takes an empty body sent as application/json, as clients that set that header on every request send it', async () => {
      const created = (await create({ title: 'Doomed too' })).body.data;
      const json = { 'content-type': 'application/json' };
      const response = await request(t, 'DELETE', `/v1/tags/${created.id}`, { key: alice.key, rawBody: '', headers: json });
      expect(response.status, response.text).toBe(200);
      // A route that takes a body answers an empty one as it answers none.
      const empty = await request(t, 'POST', '/v1/tags', { key: alice.key, rawBody: '', headers: json });
      expectError(empty, 400, 'validation_error');
      expect(empty.body.error.message).toBe('the body must be a JSON object');
      const none = await request(t, 'POST', '/v1/tags', { key: alice.key });
      expectError(none, 400, 'validation_error');
      expect(none.body.error.message).toBe(empty.body.error.message);
    });
  });

  describe('POST /v1/tags/batch', () => {
    it('creates every tag and returns their ids', async () => {
      const response = await request(t, 'POST', '/v1/tags/batch', {
        key: alice.key,
        body: { tags: [{ title: 'B1' }, { title: 'B2', content: '<p>x</p>' }, { title: 'B3', permissions: { read: 'private' } }] },
      });
      expect(response.status).toBe(201);
      expect(response.body.data.created).toBe(3);
      expect(response.body.data.tags).toHaveLength(3);
      for (const item of response.body.data.tags) {
        expect(Object.keys(item).sort()).toEqual(['id', 'short_id']);
        const fetched = await request(t, 'GET', `/v1/tags/${item.short_id}`, { key: alice.key });
        expect(fetched.body.data.id).toBe(item.id);
      }
    });

    it('is all or nothing and names the failing item', async () => {
      const before = (await request(t, 'GET', '/v1/tags?limit=1', { key: alice.key })).body.pagination.total;
      const batch = (tags: unknown[]) => request(t, 'POST', '/v1/tags/batch', { key: alice.key, body: { tags } });
      expectError(await batch([{ title: 'ok' }, { title: 'ok' }, { title: '  ' }]), 400, 'validation_error', 'tags[2].title');
      expectError(await batch([{ title: 'ok' }, { content: [] }]), 400, 'validation_error', 'tags[1].title');
      expectError(
        await batch([{ title: 'ok' }, { title: 'x', content: [{ type: 'heading', content: 'h', level: 9 }] }]),
        400,
        'validation_error',
        'tags[1].content[0].level',
      );
      expectError(
        await batch([{ title: 'ok', readPermission: 'private', permissions: { read: 'public' } }]),
        400,
        'validation_error',
        'tags[0].readPermission',
      );
      expectError(await batch([]), 400, 'validation_error', 'tags');
      expectError(await batch(Array.from({ length: 101 }, (_, i) => ({ title: `t${i}` }))), 400, 'validation_error', 'tags');
      expect((await request(t, 'GET', '/v1/tags?limit=1', { key: alice.key })).body.pagination.total).toBe(before);
    });

    it('accepts 100 tags', async () => {
      const response = await request(t, 'POST', '/v1/tags/batch', {
        key: alice.key,
        body: { tags: Array.from({ length: 100 }, (_, i) => ({ title: `bulk ${i}` })) },
      });
      expect(response.status).toBe(201);
      expect(response.body.data.created).toBe(100);
      expect(new Set(response.body.data.tags.map((x: { short_id: string }) => x.short_id)).size).toBe(100);
    });
  });
});

describe('GET /v1/tags: sorting, filtering, pagination', () => {
  const t = useApp();
  const owner = useAccount(t);
  const titles = ['banana', 'Apple', 'cherry', 'date', 'elderberry'];
  const ids: string[] = [];
  let folderId: string;

  beforeAll(async () => {
    folderId = (await request(t, 'POST', '/v1/folders', { key: owner.key, body: { name: 'Fruit' } })).body.data.id;
    t.clock.freeze(new Date('2026-01-01T00:00:00.000Z'));
    for (const [index, title] of titles.entries()) {
      t.clock.advance(1000);
      const body = index % 2 === 0 ? { title, folder_id: folderId } : { title };
      ids.push((await request(t, 'POST', '/v1/tags', { key: owner.key, body })).body.data.id);
    }
    // Update 'Apple' last, so it is the most recently updated.
    t.clock.advance(10_000);
    await request(t, 'PUT', `/v1/tags/${ids[1]}`, { key: owner.key, body: { content: [] } });
  });

  const list = async (query: string) => (await request(t, 'GET', `/v1/tags?${query}`, { key: owner.key })).body;

  it('returns the spec fields, newest first by default', async () => {
    const body = await list('');
    expect(body.data.map((x: { title: string }) => x.title)).toEqual([...titles].reverse());
    expect(Object.keys(body.data[0]).sort()).toEqual([
      'created_at',
      'folder_id',
      'id',
      'permissions',
      'short_id',
      'status',
      'title',
      'updated_at',
    ]);
    expect(body.pagination).toEqual({ total: 5, limit: 20, offset: 0, has_more: false });
  });

  it('sorts by created, updated and title in both orders', async () => {
    expect((await list('sort=created&order=asc')).data.map((x: { id: string }) => x.id)).toEqual(ids);
    expect((await list('sort=updated&order=desc')).data[0].title).toBe('Apple');
    expect((await list('sort=title&order=asc')).data.map((x: { title: string }) => x.title)).toEqual([
      'Apple',
      'banana',
      'cherry',
      'date',
      'elderberry',
    ]);
    expect((await list('sort=title&order=desc')).data.map((x: { title: string }) => x.title)).toEqual([
      'elderberry',
      'date',
      'cherry',
      'banana',
      'Apple',
    ]);
  });

  it('filters by folder', async () => {
    const body = await list(`folder=${folderId}&sort=created&order=asc`);
    expect(body.data.map((x: { title: string }) => x.title)).toEqual(['banana', 'cherry', 'elderberry']);
    expect(body.pagination.total).toBe(3);
    expect(body.data.every((x: { folder_id: string }) => x.folder_id === folderId)).toBe(true);
  });

  it('pages without overlap', async () => {
    const first = await list('limit=2&offset=0&sort=created&order=asc');
    const second = await list('limit=2&offset=2&sort=created&order=asc');
    const third = await list('limit=2&offset=4&sort=created&order=asc');
    expect([...first.data, ...second.data, ...third.data].map((x: { id: string }) => x.id)).toEqual(ids);
    expect(first.pagination).toEqual({ total: 5, limit: 2, offset: 0, has_more: true });
    expect(third.pagination).toEqual({ total: 5, limit: 2, offset: 4, has_more: false });
  });

  it.each([
    ['sort=name', 'sort'],
    ['order=up', 'order'],
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=99999999999999999999', 'offset'],
    ['folder=fld_01m802r69tb18dkd20f3k82y80', 'folder'],
  ])('rejects %s', async (query, field) => {
    expectError(await request(t, 'GET', `/v1/tags?${query}`, { key: owner.key }), 400, 'validation_error', field);
  });
});

describe('tag access: accounts, organizations, environments, permissions', () => {
  const t = useApp();
  const alice = useAccount(t);
  const bob = useAccount(t);

  it('keeps accounts apart: 403 for another account’s tag, and lists only one’s own', async () => {
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Alice only' } })).body.data;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { title: 'hijack' }],
      ['DELETE', undefined],
    ] as const) {
      expectError(await request(t, method, `/v1/tags/${tag.id}`, { key: bob.key, body }), 403, 'forbidden');
      expectError(await request(t, method, `/v1/tags/${tag.short_id}`, { key: bob.key, body }), 403, 'forbidden');
    }
    const bobs = await request(t, 'GET', '/v1/tags', { key: bob.key });
    expect(bobs.body.data.find((x: { id: string }) => x.id === tag.id)).toBeUndefined();
    expect((await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).body.data.title).toBe('Alice only');
  });

  it('keeps live and test data apart: neither sees nor counts the other', async () => {
    const testKey = (await createKey(t, alice.email, { test: true })).key;
    const live = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'live tag' } })).body.data;
    const sandbox = (await request(t, 'POST', '/v1/tags', { key: testKey, body: { title: 'test tag' } })).body.data;
    expectError(await request(t, 'GET', `/v1/tags/${live.id}`, { key: testKey }), 404, 'not_found');
    expectError(await request(t, 'GET', `/v1/tags/${live.short_id}`, { key: testKey }), 404, 'not_found');
    expectError(await request(t, 'GET', `/v1/tags/${sandbox.id}`, { key: alice.key }), 404, 'not_found');
    const testList = await request(t, 'GET', '/v1/tags', { key: testKey });
    expect(testList.body.data.map((x: { id: string }) => x.id)).toEqual([sandbox.id]);
    expect(testList.body.pagination.total).toBe(1);
    const liveFolder = (await request(t, 'POST', '/v1/folders', { key: alice.key, body: { name: 'live' } })).body.data;
    expectError(
      await request(t, 'POST', '/v1/tags', { key: testKey, body: { title: 'x', folder_id: liveFolder.id } }),
      400,
      'validation_error',
      'folder_id',
    );
  });

  it('separates personal and organization space, and applies write: owner vs organization', async () => {
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Org', ownerEmail: alice.email, plan: 'pro' });
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: bob.email, role: 'admin' });
    const aliceOrgKey = (await createKey(t, alice.email, { organizationId: org.id })).key;
    const bobOrgKey = (await createKey(t, bob.email, { organizationId: org.id })).key;

    const ownerOnly = (await request(t, 'POST', '/v1/tags', { key: aliceOrgKey, body: { title: 'owner only' } })).body.data;
    const shared = (
      await request(t, 'POST', '/v1/tags', {
        key: aliceOrgKey,
        body: { title: 'shared', permissions: { read: 'organization', write: 'organization' } },
      })
    ).body.data;
    expect(shared.permissions).toEqual({ read: 'organization', write: 'organization' });

    // Any key of the organization reads its tags; the personal key does not reach them.
    expect((await request(t, 'GET', `/v1/tags/${ownerOnly.id}`, { key: bobOrgKey })).status).toBe(200);
    expectError(await request(t, 'GET', `/v1/tags/${ownerOnly.id}`, { key: alice.key }), 403, 'forbidden');
    const orgList = await request(t, 'GET', '/v1/tags', { key: bobOrgKey });
    expect(orgList.body.data.map((x: { id: string }) => x.id).sort()).toEqual([ownerOnly.id, shared.id].sort());

    // write: owner → only its owner edits or deletes; write: organization → any member.
    expectError(await request(t, 'PUT', `/v1/tags/${ownerOnly.id}`, { key: bobOrgKey, body: { title: 'nope' } }), 403, 'forbidden');
    expectError(await request(t, 'DELETE', `/v1/tags/${ownerOnly.id}`, { key: bobOrgKey }), 403, 'forbidden');
    expect((await request(t, 'PUT', `/v1/tags/${ownerOnly.id}`, { key: aliceOrgKey, body: { title: 'by owner' } })).status).toBe(200);
    const edited = await request(t, 'PUT', `/v1/tags/${shared.id}`, { key: bobOrgKey, body: { title: 'by member' } });
    expect(edited.status).toBe(200);
    expect(edited.body.data.owner.id).toBe(alice.userId);
    expect((await request(t, 'DELETE', `/v1/tags/${shared.id}`, { key: bobOrgKey })).status).toBe(200);
  });

  it('enforces the permission each endpoint needs', async () => {
    const tag = (await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'matrix' } })).body.data;
    const folder = (await request(t, 'POST', '/v1/folders', { key: alice.key, body: { name: 'matrix' } })).body.data;
    const routes: Array<[string, string, string, unknown?]> = [
      ['GET', '/v1/tags', 'tags:read'],
      ['GET', `/v1/tags/${tag.id}`, 'tags:read'],
      ['GET', `/v1/tags/${tag.id}/qr`, 'tags:read'],
      ['POST', '/v1/tags', 'tags:write', { title: 'x' }],
      ['POST', '/v1/tags/batch', 'tags:write', { tags: [{ title: 'x' }] }],
      ['PUT', `/v1/tags/${tag.id}`, 'tags:write', { title: 'y' }],
      ['GET', '/v1/folders', 'tags:read'],
      ['GET', `/v1/folders/${folder.id}`, 'tags:read'],
      ['POST', '/v1/folders', 'tags:write', { name: 'x' }],
      ['PATCH', `/v1/folders/${folder.id}`, 'tags:write', { name: 'z' }],
    ];
    const allButOne = (permission: string) =>
      ['tags:read', 'tags:write', 'tags:delete', 'files:read', 'files:write', 'webhooks:read', 'webhooks:write', 'analytics:read']
        .filter((p) => p !== permission)
        .join(',');
    for (const [method, path, permission, body] of routes) {
      const without = (await createKey(t, alice.email, { permissions: allButOne(permission) })).key;
      const denied = await request(t, method, path, { key: without, body });
      expectError(denied, 403, 'forbidden');
      expect(denied.body.error.message, `${method} ${path}`).toContain(permission);
      const only = (await createKey(t, alice.email, { permissions: permission })).key;
      expect((await request(t, method, path, { key: only, body })).status, `${method} ${path}`).toBeLessThan(300);
    }
    const noDelete = (await createKey(t, alice.email, { permissions: allButOne('tags:delete') })).key;
    expectError(await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: noDelete }), 403, 'forbidden');
    expectError(await request(t, 'DELETE', `/v1/folders/${folder.id}`, { key: noDelete }), 403, 'forbidden');
    const deleteOnly = (await createKey(t, alice.email, { permissions: 'tags:delete' })).key;
    expect((await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: deleteOnly })).status).toBe(200);
    expect((await request(t, 'DELETE', `/v1/folders/${folder.id}`, { key: deleteOnly })).status).toBe(200);
  });
});
