import { beforeAll, describe, expect, it } from 'vitest';
import { createShare, listShares } from '../../src/features/shares/index.js';
import { actorOf, createKey, expectError, PUBLIC_BASE_URL, request } from '../helpers/app.js';
import { useAccount } from '../helpers/harness.js';
import { createTag, getData, useAnalyticsApp, type CreatedTag } from '../analytics/support.js';

/**
 * /v1/tags/{id}/analytics/shares: create, list, revoke; every refused input in the error
 * envelope naming its field; another account's tags and shares; expiry under the test clock.
 */
describe('analytics shares API', () => {
  const t = useAnalyticsApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let tag: CreatedTag;
  let bobTag: CreatedTag;
  const NOW = '2026-03-10T12:00:00.000Z';

  const sharesPath = (id = tag.id) => `/v1/tags/${id}/analytics/shares`;
  const create = (body: unknown, key = alice.key, id = tag.id) => request(t, 'POST', sharesPath(id), { key, body });

  beforeAll(async () => {
    t.clock.freeze(new Date(NOW));
    tag = await createTag(t, alice.key, { title: 'Spring poster' });
    bobTag = await createTag(t, bob.key, { title: "Bob's" });
  });

  it('creates a share with an address, lists it the same, and revokes it', async () => {
    const response = await create({ expires_at: '2026-04-01T10:00:00+02:00', password: 'open sesame' });
    expect(response.status, response.text).toBe(201);
    const share = response.body.data;
    expect(share).toEqual({
      id: expect.stringMatching(/^shr_[0-9a-z]{26}$/),
      url: expect.stringMatching(new RegExp(`^${PUBLIC_BASE_URL}/stats/[A-Za-z0-9_-]{43}$`)),
      expires_at: '2026-04-01T08:00:00.000Z',
      password_protected: true,
      created_at: NOW,
    });
    const plain = (await create({})).body.data;
    expect(plain).toMatchObject({ expires_at: null, password_protected: false });
    expect(plain.url).not.toBe(share.url);
    // No body at all is no expiry and no password too.
    const bare = await request(t, 'POST', sharesPath(), { key: alice.key });
    expect(bare.status, bare.text).toBe(201);

    const listed = await getData(t, alice.key, sharesPath());
    expect(listed).toEqual([share, plain, bare.body.data]);
    // The short id names the tag as well.
    expect(await getData(t, alice.key, sharesPath(tag.short_id))).toEqual(listed);

    const deleted = await request(t, 'DELETE', `${sharesPath()}/${share.id}`, { key: alice.key });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: 'Share revoked' });
    expect(await getData(t, alice.key, sharesPath())).toEqual([plain, bare.body.data]);
    expectError(await request(t, 'DELETE', `${sharesPath()}/${share.id}`, { key: alice.key }), 404, 'not_found');
  });

  it('stores the token only hashed, and the password only as scrypt', async () => {
    const share = (await create({ password: 'open sesame' })).body.data;
    const token = share.url.split('/stats/')[1];
    const row = await t.database.db.selectFrom('analytics_shares').selectAll().where('id', '=', share.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(row)).not.toContain('open sesame');
  });

  it.each([
    [{ expires_at: '2026-03-10T11:59:59Z' }, 'expires_at'],
    [{ expires_at: NOW }, 'expires_at'],
    [{ expires_at: 'next tuesday' }, 'expires_at'],
    [{ expires_at: '2026-04-01' }, 'expires_at'],
    [{ expires_at: 1775000000 }, 'expires_at'],
    [{ password: 'abc' }, 'password'],
    [{ password: 'x'.repeat(129) }, 'password'],
    [{ password: 7 }, 'password'],
    [{ expires: '2026-04-01T00:00:00Z' }, 'expires'],
  ])('refuses %j naming %s', async (body, field) => {
    expectError(await create(body), 400, 'validation_error', field);
  });

  it('reaches only the caller’s own tags and their shares', async () => {
    const bobShare = (await create({}, bob.key, bobTag.id)).body.data;
    // Another account's tag: refused as its report is.
    expectError(await create({}, alice.key, bobTag.id), 403, 'forbidden');
    expectError(await request(t, 'GET', sharesPath(bobTag.id), { key: alice.key }), 403, 'forbidden');
    // Another account's share, through one's own tag: not found, and still there.
    expectError(await request(t, 'DELETE', `${sharesPath()}/${bobShare.id}`, { key: alice.key }), 404, 'not_found');
    expect((await getData(t, bob.key, sharesPath(bobTag.id))).map((s: { id: string }) => s.id)).toEqual([bobShare.id]);
    expectError(await request(t, 'GET', sharesPath('tag_00000000000000000000000000'), { key: alice.key }), 404, 'not_found');
    // An address that names no share at all, as any unknown route.
    expectError(await request(t, 'DELETE', `${sharesPath()}/shr_nope`, { key: alice.key }), 404, 'not_found');
  });

  it('needs analytics:read', async () => {
    const { key } = await createKey(t, alice.email, { permissions: 'tags:read' });
    expectError(await create({}, key), 403, 'forbidden');
    expectError(await request(t, 'GET', sharesPath(), { key }), 403, 'forbidden');
  });

  it('goes with its tag', async () => {
    const doomed = await createTag(t, alice.key, { title: 'Doomed' });
    const share = (await create({}, alice.key, doomed.id)).body.data;
    expect((await request(t, 'DELETE', `/v1/tags/${doomed.id}`, { key: alice.key })).status).toBe(200);
    const rows = await t.database.db.selectFrom('analytics_shares').select('id').where('id', '=', share.id).execute();
    expect(rows).toEqual([]);
  });

  it('is the same service the dashboard calls', async () => {
    const made = await createShare(t.services, actorOf(alice), { id: tag.id });
    expect((await listShares(t.services, actorOf(alice), { id: tag.id })).at(-1)).toEqual(made);
  });
});
