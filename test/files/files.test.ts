import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { storageUsed } from '../../src/features/files/files.repository.js';
import { purgeSandbox } from '../../src/jobs/sandbox-purge.js';
import { createKey, expectError, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, derivedOf, sha256, storedKeys, upload } from './helpers.js';
import { image, pdf, svg } from './samples.js';

describe('files API', () => {
  const t = useApp();
  const alice = useAccount(t);
  const bob = useAccount(t);
  let tag: { id: string; short_id: string };
  const blobs = () => storedKeys(t);

  beforeAll(async () => {
    tag = await createTag(t, alice.key);
  });

  describe('list, get, patch, delete', () => {
    it('lists a tag’s files newest first with pagination', async () => {
      const own = await createTag(t, alice.key);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await upload(t, alice.key, own.id, `f${i}.txt`, Buffer.from(`file ${i}`))).body.data.id);
      const page = await request(t, 'GET', `/v1/tags/${own.id}/files?limit=2`, { key: alice.key });
      expect(page.status).toBe(200);
      expect(page.body.data.map((f: { id: string }) => f.id)).toEqual([ids[2], ids[1]]);
      expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, has_more: true });
      const rest = await request(t, 'GET', `/v1/tags/${own.short_id}/files?limit=2&offset=2`, { key: alice.key });
      expect(rest.body.data.map((f: { id: string }) => f.id)).toEqual([ids[0]]);
      expect(rest.body.pagination.has_more).toBe(false);
      expect(page.body.data[0]).toMatchObject({ name: 'f2.txt', original_name: 'f2.txt', mime_type: 'text/plain', size: 6 });
      expectError(await request(t, 'GET', `/v1/tags/${own.id}/files?limit=101`, { key: alice.key }), 400, 'validation_error', 'limit');
    });

    it('PATCH changes name and description and returns the full file', async () => {
      const file = (await upload(t, alice.key, tag.id, 'draft.pdf', pdf(), { description: 'old' })).body.data;
      t.clock.advance(1000);
      const response = await request(t, 'PATCH', `/v1/files/${file.id}`, {
        key: alice.key,
        body: { name: 'Final.pdf', description: 'new' },
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        ...file,
        name: 'Final.pdf',
        description: 'new',
        updated_at: response.body.data.updated_at,
      });
      expect(response.body.data.updated_at > file.updated_at).toBe(true);
      expect(response.body.data.original_name).toBe('draft.pdf');
      const cleared = await request(t, 'PATCH', `/v1/files/${file.id}`, { key: alice.key, body: { description: null } });
      expect(cleared.body.data).toMatchObject({ name: 'Final.pdf', description: null });
      expect((await request(t, 'GET', `/v1/files/${file.id}`, { key: alice.key })).body.data).toEqual(cleared.body.data);
      const download = await request(t, 'GET', `/v1/files/${file.id}/download`, { key: alice.key });
      expect(download.headers.get('content-disposition')).toBe('attachment; filename="Final.pdf"');
    });

    it.each([
      [{ name: '' }, 'name'],
      [{ name: 'a/b' }, 'name'],
      [{ name: 'a\\b' }, 'name'],
      [{ name: 'new\nline' }, 'name'],
      [{ name: 'evil\u202Efdp.exe' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: ' padded ' }, 'name'],
      [{ name: 5 }, 'name'],
      [{ description: 'd'.repeat(2001) }, 'description'],
      [{ size: 1 }, 'size'],
    ])('PATCH refuses %j naming %s', async (body, field) => {
      const file = (await upload(t, alice.key, tag.id, 'p.txt', Buffer.from('x'))).body.data;
      expectError(await request(t, 'PATCH', `/v1/files/${file.id}`, { key: alice.key, body }), 400, 'validation_error', field);
    });

    it('DELETE removes the row, the blob and its renders', async () => {
      const file = (await upload(t, alice.key, tag.id, 'gone.png', await image('png', 40, 40))).body.data;
      await request(t, 'GET', `/v1/files/${file.id}/thumbnail`, { key: alice.key });
      const before = (await blobs()).length;
      const response = await request(t, 'DELETE', `/v1/files/${file.id}`, { key: alice.key });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, message: 'File deleted' });
      expect((await blobs()).length).toBe(before - 1);
      expect(await derivedOf(t, file.id)).toEqual([]);
      expectError(await request(t, 'GET', `/v1/files/${file.id}`, { key: alice.key }), 404, 'not_found');
      expectError(await request(t, 'GET', `/v1/files/${file.id}/download`, { key: alice.key }), 404, 'not_found');
      expectError(await request(t, 'DELETE', `/v1/files/${file.id}`, { key: alice.key }), 404, 'not_found');
    });

    it('answers 404 for unknown and malformed file ids', async () => {
      for (const id of ['file_01m802r69tb18dkd20f3k82y80', 'nope', 'file_../../etc']) {
        expectError(await request(t, 'GET', `/v1/files/${encodeURIComponent(id)}`, { key: alice.key }), 404, 'not_found');
      }
    });
  });

  describe('access', () => {
    let file: { id: string };
    beforeAll(async () => {
      file = (await upload(t, alice.key, tag.id, 'private.txt', Buffer.from('secret'))).body.data;
    });

    it('needs files:read to read and files:write to change', async () => {
      const reader = (await createKey(t, alice.email, { permissions: 'files:read' })).key;
      const writer = (await createKey(t, alice.email, { permissions: 'files:write' })).key;
      for (const path of [
        `/v1/tags/${tag.id}/files`,
        `/v1/files/${file.id}`,
        `/v1/files/${file.id}/download`,
        `/v1/files/${file.id}/thumbnail`,
      ]) {
        expect((await request(t, 'GET', path, { key: reader })).status).not.toBe(403);
        const refused = await request(t, 'GET', path, { key: writer });
        expectError(refused, 403, 'forbidden');
        expect(refused.body.error.message).toContain('files:read');
      }
      expectError(await upload(t, reader, tag.id, 'a.txt', Buffer.from('x')), 403, 'forbidden');
      expectError(
        await request(t, 'POST', `/v1/tags/${tag.id}/files/from-url`, { key: reader, body: { url: 'http://example.com/a.txt' } }),
        403,
        'forbidden',
      );
      expectError(await request(t, 'PATCH', `/v1/files/${file.id}`, { key: reader, body: { name: 'x.txt' } }), 403, 'forbidden');
      expectError(await request(t, 'DELETE', `/v1/files/${file.id}`, { key: reader }), 403, 'forbidden');
      expect((await upload(t, writer, tag.id, 'w.txt', Buffer.from('x'))).status).toBe(201);
      expect((await request(t, 'PATCH', `/v1/files/${file.id}`, { key: writer, body: { description: 'ok' } })).status).toBe(200);
    });

    it('keeps accounts apart (403) and environments apart (404)', async () => {
      for (const [method, path] of [
        ['GET', `/v1/files/${file.id}`],
        ['GET', `/v1/files/${file.id}/download`],
        ['GET', `/v1/files/${file.id}/thumbnail`],
        ['DELETE', `/v1/files/${file.id}`],
        ['GET', `/v1/tags/${tag.id}/files`],
      ] as const) {
        expectError(await request(t, method, path, { key: bob.key }), 403, 'forbidden');
      }
      expectError(await request(t, 'PATCH', `/v1/files/${file.id}`, { key: bob.key, body: { name: 'mine.txt' } }), 403, 'forbidden');
      expectError(await upload(t, bob.key, tag.id, 'x.txt', Buffer.from('x')), 403, 'forbidden');
      const sandbox = (await createKey(t, alice.email, { test: true })).key;
      expectError(await request(t, 'GET', `/v1/files/${file.id}`, { key: sandbox }), 404, 'not_found');
      expectError(await request(t, 'GET', `/v1/files/${file.id}/download`, { key: sandbox }), 404, 'not_found');
      expectError(await upload(t, sandbox, tag.id, 'x.txt', Buffer.from('x')), 404, 'not_found');
      expect((await request(t, 'GET', `/v1/files/${file.id}`, { key: alice.key })).status).toBe(200);
    });

    it('files of organization tags belong to the organization; write: owner applies to them', async () => {
      const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Files Org', ownerEmail: alice.email, plan: 'pro' });
      await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: bob.email, role: 'admin' });
      const aliceOrg = (await createKey(t, alice.email, { organizationId: org.id })).key;
      const bobOrg = (await createKey(t, bob.email, { organizationId: org.id })).key;
      const shared = await createTag(t, aliceOrg, { permissions: { read: 'public', write: 'organization' } });
      const ownerOnly = await createTag(t, aliceOrg);
      const uploaded = await upload(t, bobOrg, shared.id, 'team.txt', Buffer.from('team'));
      expect(uploaded.status).toBe(201);
      expect((await request(t, 'GET', `/v1/files/${uploaded.body.data.id}`, { key: aliceOrg })).status).toBe(200);
      expectError(await request(t, 'GET', `/v1/files/${uploaded.body.data.id}`, { key: alice.key }), 403, 'forbidden');
      expectError(await upload(t, bobOrg, ownerOnly.id, 'no.txt', Buffer.from('x')), 403, 'forbidden');
      const aliceFile = (await upload(t, aliceOrg, ownerOnly.id, 'mine.txt', Buffer.from('x'))).body.data;
      expect((await request(t, 'GET', `/v1/files/${aliceFile.id}/download`, { key: bobOrg })).status).toBe(200);
      expectError(await request(t, 'DELETE', `/v1/files/${aliceFile.id}`, { key: bobOrg }), 403, 'forbidden');
      // Storage is the organization's.
      expect(await storageUsed(t.database.db, org.id, 'live')).toBe(5);
    });
  });

  describe('events', () => {
    it('emits file.uploaded and file.deleted in the outbox with the tag and the file', async () => {
      const own = await createTag(t, alice.key);
      const file = (await upload(t, alice.key, own.id, 'event.txt', Buffer.from('event'))).body.data;
      await request(t, 'DELETE', `/v1/files/${file.id}`, { key: alice.key });
      const rows = await t.database.db
        .selectFrom('events')
        .selectAll()
        .where('tag_id', '=', own.id)
        .where('type', 'like', 'file.%')
        .orderBy('id')
        .execute();
      expect(rows.map((r) => r.type)).toEqual(['file.uploaded', 'file.deleted']);
      for (const row of rows) {
        const body = JSON.parse(row.payload);
        expect(body.event).toBe(row.type);
        expect(body.id).toMatch(/^evt_/);
        expect(body.data.tag).toEqual({ id: own.id, short_id: own.short_id, title: 'With files' });
        expect(body.data.file).toEqual(file);
        expect(row.owner_id).toBe(alice.userId);
        expect(row.environment).toBe('live');
      }
    });

    it('writes no event for a refused upload', async () => {
      const own = await createTag(t, alice.key);
      await upload(t, alice.key, own.id, 'bad.exe', Buffer.from('MZ'));
      const rows = await t.database.db
        .selectFrom('events')
        .select('id')
        .where('tag_id', '=', own.id)
        .where('type', 'like', 'file.%')
        .execute();
      expect(rows).toEqual([]);
    });
  });

  describe('deleting a tag', () => {
    it('deletes its files, their blobs and renders, and gives the storage back', async () => {
      const own = await createTag(t, alice.key);
      const other = await createTag(t, alice.key);
      const keep = (await upload(t, alice.key, other.id, 'keep.txt', Buffer.from('keep'))).body.data;
      const usedBefore = await storageUsed(t.database.db, alice.userId, 'live');
      const before = (await blobs()).length;
      const ids: string[] = [];
      for (const name of ['a.txt', 'b.pdf'])
        ids.push((await upload(t, alice.key, own.id, name, name.endsWith('pdf') ? pdf() : Buffer.from('abc'))).body.data.id);
      const pic = (await upload(t, alice.key, own.id, 'c.png', await image('png', 30, 30))).body.data;
      await request(t, 'GET', `/v1/files/${pic.id}/thumbnail`, { key: alice.key });
      expect((await blobs()).length).toBe(before + 3);
      const response = await request(t, 'DELETE', `/v1/tags/${own.id}`, { key: alice.key });
      expect(response.status).toBe(200);
      expect((await blobs()).length).toBe(before);
      expect(await derivedOf(t, pic.id)).toEqual([]);
      for (const id of [...ids, pic.id]) expectError(await request(t, 'GET', `/v1/files/${id}`, { key: alice.key }), 404, 'not_found');
      expect((await request(t, 'GET', `/v1/files/${keep.id}`, { key: alice.key })).status).toBe(200);
      expect(await storageUsed(t.database.db, alice.userId, 'live')).toBe(usedBefore);
      const rows = await t.database.db.selectFrom('files').select('id').where('tag_id', '=', own.id).execute();
      expect(rows).toEqual([]);
    });

    it('the sandbox purge removes old test tags with their files and blobs', async () => {
      const sandbox = (await createKey(t, alice.email, { test: true })).key;
      const old = await createTag(t, sandbox);
      const file = (await upload(t, sandbox, old.id, 'old.txt', Buffer.from('old'))).body.data;
      expect(await storageUsed(t.database.db, alice.userId, 'test')).toBeGreaterThan(0);
      const before = (await blobs()).length;
      const purged = await purgeSandbox(t.services, new Date(Date.now() + 60_000).toISOString());
      expect(purged.tags).toBeGreaterThan(0);
      expect((await blobs()).length).toBe(before - 1);
      expectError(await request(t, 'GET', `/v1/files/${file.id}`, { key: sandbox }), 404, 'not_found');
      expect(await storageUsed(t.database.db, alice.userId, 'test')).toBe(0);
    });
  });

  describe('image blocks', () => {
    it('accept only image files of the same tag, on PUT', async () => {
      const own = await createTag(t, alice.key);
      const other = await createTag(t, alice.key);
      const picture = (await upload(t, alice.key, own.id, 'pic.png', await image('png', 20, 20))).body.data;
      const vector = (await upload(t, alice.key, own.id, 'logo.svg', svg())).body.data;
      const document = (await upload(t, alice.key, own.id, 'doc.pdf', pdf())).body.data;
      const elsewhere = (await upload(t, alice.key, other.id, 'there.png', await image('png', 20, 20))).body.data;
      const put = (content: unknown[]) => request(t, 'PUT', `/v1/tags/${own.id}`, { key: alice.key, body: { content } });
      const ok = await put([
        { type: 'text', content: 'hi' },
        { type: 'image', file_id: picture.id, alt: 'A picture' },
        { type: 'image', file_id: vector.id },
      ]);
      expect(ok.status).toBe(200);
      expect(ok.body.data.content[1]).toMatchObject({ type: 'image', file_id: picture.id, alt: 'A picture' });
      expectError(
        await put([
          { type: 'text', content: 'x' },
          { type: 'image', file_id: document.id },
        ]),
        400,
        'validation_error',
        'content[1].file_id',
      );
      expectError(await put([{ type: 'image', file_id: elsewhere.id }]), 400, 'validation_error', 'content[0].file_id');
      expectError(
        await put([{ type: 'image', file_id: 'file_01m802r69tb18dkd20f3k82y80' }]),
        400,
        'validation_error',
        'content[0].file_id',
      );
      // A new tag has no files yet.
      expectError(
        await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'x', content: [{ type: 'image', file_id: picture.id }] } }),
        400,
        'validation_error',
        'content[0].file_id',
      );
      expectError(
        await request(t, 'POST', '/v1/tags/batch', {
          key: alice.key,
          body: { tags: [{ title: 'a' }, { title: 'b', content: [{ type: 'image', file_id: picture.id }] }] },
        }),
        400,
        'validation_error',
        'tags[1].content[0].file_id',
      );
    });
  });

  describe('public images', () => {
    it('serves image files of public tags to their page inline', async () => {
      const pub = await createTag(t, alice.key);
      const content = await image('png', 32, 16);
      const picture = (await upload(t, alice.key, pub.id, 'pic.png', content)).body.data;
      const document = (await upload(t, alice.key, pub.id, 'doc.pdf', pdf())).body.data;
      await request(t, 'PUT', `/v1/tags/${pub.id}`, {
        key: alice.key,
        body: { content: [{ type: 'image', file_id: picture.id, alt: 'pic' }] },
      });

      const page = await request(t, 'GET', `/t/${pub.short_id}`);
      expect(page.text).toContain(`src="/t/${pub.short_id}/files/${picture.id}"`);

      const served = await request(t, 'GET', `/t/${pub.short_id}/files/${picture.id}`);
      expect(served.status).toBe(200);
      expect(sha256(served.raw)).toBe(sha256(content));
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(served.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      const etag = served.headers.get('etag')!;
      expect((await request(t, 'GET', `/t/${pub.short_id}/files/${picture.id}`, { headers: { 'if-none-match': etag } })).status).toBe(304);

      // Another type is a download (test/tags/page-sharing.test.ts); not this tag's file, not a public tag: 404.
      const attachment = await request(t, 'GET', `/t/${pub.short_id}/files/${document.id}`);
      expect(attachment.status).toBe(200);
      expect(attachment.headers.get('content-disposition')).toMatch(/^attachment;/);
      const other = await createTag(t, alice.key);
      expect((await request(t, 'GET', `/t/${other.short_id}/files/${picture.id}`)).status).toBe(404);
      expect((await request(t, 'GET', `/t/ZZZZZZZZ/files/${picture.id}`)).status).toBe(404);
      expect((await request(t, 'GET', `/t/${pub.short_id}/files/nope`)).status).toBe(404);
      await request(t, 'PUT', `/v1/tags/${pub.id}`, { key: alice.key, body: { permissions: { read: 'private' } } });
      expect((await request(t, 'GET', `/t/${pub.short_id}/files/${picture.id}`)).status).toBe(404);
      // Downloads do not count views of the page.
      expect((await request(t, 'GET', `/v1/files/${picture.id}`, { key: alice.key })).body.data.download_count).toBe(0);
    });
  });
});
