import { describe, expect, it } from 'vitest';
import { expectError, request, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/** Chosen addresses: shape, reserved words, uniqueness ignoring case, and redirects after a rename. */

async function createTag(t: TestApp, key: string, body: Record<string, unknown>) {
  const response = await request(t, 'POST', '/v1/tags', { key, body });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: string; short_id: string; url: string };
}

describe('chosen addresses', () => {
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');

  it('takes a chosen address on create and serves the page there', async () => {
    const tag = await createTag(t, alice.key, { title: 'Spring menu', short_id: 'spring-menu_2026' });
    expect(tag.short_id).toBe('spring-menu_2026');
    expect(tag.url).toBe('http://tagsvc.test/t/spring-menu_2026');
    const page = await request(t, 'GET', '/t/spring-menu_2026');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Spring menu</h1>');
    expect((await request(t, 'GET', '/v1/tags/spring-menu_2026', { key: alice.key })).body.data.id).toBe(tag.id);
  });

  it('refuses an address taken by any tag, whatever its case, with 409 short_id_taken', async () => {
    await createTag(t, alice.key, { title: 'Taken', short_id: 'Lunch' });
    expectError(
      await request(t, 'POST', '/v1/tags', { key: bob.key, body: { title: 'Mine', short_id: 'Lunch' } }),
      409,
      'short_id_taken',
      'short_id',
    );
    expectError(
      await request(t, 'POST', '/v1/tags', { key: bob.key, body: { title: 'Mine', short_id: 'lUNCH' } }),
      409,
      'short_id_taken',
      'short_id',
    );
    const other = await createTag(t, bob.key, { title: 'Other' });
    expectError(
      await request(t, 'PUT', `/v1/tags/${other.id}`, { key: bob.key, body: { short_id: 'LUNCH' } }),
      409,
      'short_id_taken',
      'short_id',
    );
  });

  it('refuses malformed and reserved addresses with 400 on short_id', async () => {
    for (const bad of ['ab', 'a b', 'x'.repeat(65), 'café', 'a/b', '']) {
      const response = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Bad', short_id: bad } });
      expectError(response, 400, 'validation_error', 'short_id');
    }
    for (const reserved of ['docs', 'Dashboard', 'batch', 'preview', 'tag_01jd8x3k5q7m2n4p6r8s0t2v4w', 'TAG_anything']) {
      const response = await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Reserved', short_id: reserved } });
      expectError(response, 400, 'validation_error', 'short_id');
      expect(response.body.error.message).toMatch(/reserved|3 to 64/);
    }
  });

  it('refuses a batch whose items choose one address twice, creating none of them', async () => {
    const before = (await request(t, 'GET', '/v1/tags?limit=100', { key: alice.key })).body.pagination.total;
    const response = await request(t, 'POST', '/v1/tags/batch', {
      key: alice.key,
      body: {
        tags: [
          { title: 'One', short_id: 'twice-here' },
          { title: 'Two', short_id: 'Twice-Here' },
        ],
      },
    });
    expectError(response, 409, 'short_id_taken', 'tags[1].short_id');
    expect((await request(t, 'GET', '/v1/tags?limit=100', { key: alice.key })).body.pagination.total).toBe(before);
    expect((await request(t, 'GET', '/t/twice-here')).status).toBe(404);
  });

  it('redirects the old page, scan and QR addresses (301) after a rename, and never gives them to another tag', async () => {
    const tag = await createTag(t, alice.key, { title: 'Menu' });
    const old = tag.short_id;
    const renamed = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { short_id: 'menu-card' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data.short_id).toBe('menu-card');
    for (const [from, to] of [
      [`/t/${old}`, '/t/menu-card'],
      [`/s/${old}`, '/s/menu-card'],
      [`/t/${old}/qr.png?size=256`, '/t/menu-card/qr.png?size=256'],
      [`/t/${old}/qr.svg`, '/t/menu-card/qr.svg'],
    ]) {
      const response = await request(t, 'GET', from!);
      expect(response.status, from).toBe(301);
      expect(response.headers.get('location'), from).toBe(to);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    // A second rename: both earlier addresses lead to the current one.
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { short_id: 'menu-2027' } });
    expect((await request(t, 'GET', `/t/${old}`)).headers.get('location')).toBe('/t/menu-2027');
    expect((await request(t, 'GET', '/t/menu-card')).headers.get('location')).toBe('/t/menu-2027');
    // Another case of the current address leads to it too.
    expect((await request(t, 'GET', '/t/MENU-2027')).headers.get('location')).toBe('/t/menu-2027');
    // Retired addresses belong to the tag for good.
    expectError(
      await request(t, 'POST', '/v1/tags', { key: bob.key, body: { title: 'Thief', short_id: 'menu-card' } }),
      409,
      'short_id_taken',
    );
    expectError(await request(t, 'POST', '/v1/tags', { key: bob.key, body: { title: 'Thief', short_id: old } }), 409, 'short_id_taken');
    // …and it may take one back, or change only the case of its own.
    expect((await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { short_id: 'menu-card' } })).status).toBe(200);
    expect((await request(t, 'GET', '/t/menu-card')).status).toBe(200);
    expect((await request(t, 'GET', '/t/menu-2027')).headers.get('location')).toBe('/t/menu-card');
    expect((await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { short_id: 'Menu-Card' } })).status).toBe(200);
    expect((await request(t, 'GET', '/t/Menu-Card')).status).toBe(200);
    expect((await request(t, 'GET', '/t/menu-card')).headers.get('location')).toBe('/t/Menu-Card');
  });

  it('keeps a deleted tag’s addresses from everyone, and answers them 404', async () => {
    const tag = await createTag(t, alice.key, { title: 'Gone soon', short_id: 'gone-soon' });
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { short_id: 'gone-now' } });
    expect((await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: alice.key })).status).toBe(200);
    expect((await request(t, 'GET', '/t/gone-soon')).status).toBe(404);
    expect((await request(t, 'GET', '/t/gone-now')).status).toBe(404);
    for (const address of ['gone-soon', 'GONE-NOW']) {
      expectError(
        await request(t, 'POST', '/v1/tags', { key: bob.key, body: { title: 'Reuse', short_id: address } }),
        409,
        'short_id_taken',
      );
    }
  });

  it('does not reveal a private tag or a draft through its old address', async () => {
    const hidden = await createTag(t, alice.key, { title: 'Private', permissions: { read: 'private', write: 'owner' } });
    await request(t, 'PUT', `/v1/tags/${hidden.id}`, { key: alice.key, body: { short_id: 'private-new' } });
    expect((await request(t, 'GET', `/t/${hidden.short_id}`)).status).toBe(404);
    const draft = await createTag(t, alice.key, { title: 'Draft', status: 'draft' });
    await request(t, 'PUT', `/v1/tags/${draft.id}`, { key: alice.key, body: { short_id: 'draft-new' } });
    expect((await request(t, 'GET', `/t/${draft.short_id}`)).status).toBe(404);
  });
});
