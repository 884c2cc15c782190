import { describe, expect, it } from 'vitest';
import { ApiError, problemsOf } from '../../src/errors.js';
import { actorOfKey } from '../../src/features/accounts/key-auth.js';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { createTag as createTag_ } from '../../src/features/tags/index.js';
import { expectError, request, type ApiResponse, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

/** Drafts, schedules, expiry by time and by views, where an expired page sends visitors, and previews. */

const BROWSER = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' };
const BOT = { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' };
const HOUR = 3600_000;

async function createTag(t: TestApp, key: string, body: Record<string, unknown>) {
  const response = await request(t, 'POST', '/v1/tags', { key, body });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: string; short_id: string; preview_url: string; status: string };
}

const visit = (t: TestApp, path: string, headers: Record<string, string> = BROWSER) => request(t, 'GET', path, { headers });

async function viewsOf(t: TestApp, tagId: string): Promise<number> {
  await rollUpViews(t.database.db);
  const row = await t.database.db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tag_id', '=', tagId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function expectMissing(response: ApiResponse, missing: ApiResponse) {
  expect(response.status).toBe(404);
  expect(response.text).toBe(missing.text);
  expect(response.headers.get('cache-control')).toBe('no-store');
}

describe('drafts and schedules', () => {
  const t = useApp();
  const alice = useAccount(t, 'pro');

  it('answers a draft exactly like a missing tag, on every public address, until published', async () => {
    const tag = await createTag(t, alice.key, { title: 'Secret launch', status: 'draft', content: [{ type: 'text', content: 'soon' }] });
    expect(tag.status).toBe('draft');
    const missing = await visit(t, '/t/NoSuchTag');
    for (const path of [`/t/${tag.short_id}`, `/s/${tag.short_id}`]) expectMissing(await visit(t, path), missing);
    expect((await visit(t, `/t/${tag.short_id}/qr.svg`)).status).toBe(404);
    expect(await viewsOf(t, tag.id)).toBe(0);
    const published = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { status: 'published' } });
    expect(published.body.data.status).toBe('published');
    expect((await visit(t, `/t/${tag.short_id}`)).text).toContain('Secret launch');
  });

  it('turns a scheduled page public at publish_at and expired at expires_at, on the injected clock', async () => {
    const now = t.clock.now().getTime();
    const publishAt = new Date(now + 2 * HOUR);
    const expiresAt = new Date(now + 5 * HOUR);
    const tag = await createTag(t, alice.key, {
      title: 'Open day',
      // Offsets other than Z are taken and stored in UTC.
      publish_at: publishAt.toISOString().replace('Z', '+00:00'),
      expires_at: expiresAt.toISOString(),
    });
    const read = (await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).body.data;
    expect(read.publish_at).toBe(publishAt.toISOString());
    expect(read.expires_at).toBe(expiresAt.toISOString());
    const missing = await visit(t, '/t/NoSuchTag');
    expectMissing(await visit(t, `/t/${tag.short_id}`), missing);
    t.clock.advance(2 * HOUR + 1000);
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(200);
    expect((await visit(t, `/s/${tag.short_id}`)).status).toBe(200);
    t.clock.advance(3 * HOUR);
    for (const path of [`/t/${tag.short_id}`, `/s/${tag.short_id}`]) {
      const expired = await visit(t, path);
      expect(expired.status).toBe(410);
      expect(expired.text).toContain('No longer available');
      expect(expired.text).not.toContain('Open day');
    }
    expect(await viewsOf(t, tag.id)).toBe(2);
  });

  it('sends the visitors of an expired page to expired_url when set', async () => {
    const tag = await createTag(t, alice.key, {
      title: 'Sale',
      expires_at: new Date(t.clock.now().getTime() - 1000).toISOString(),
      expired_url: 'https://shop.example.com/next-sale',
    });
    for (const path of [`/t/${tag.short_id}`, `/s/${tag.short_id}`]) {
      const response = await visit(t, path);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('https://shop.example.com/next-sale');
    }
  });

  it('expires a page once max_views views were counted; bots and HEAD use none', async () => {
    const tag = await createTag(t, alice.key, { title: 'Two only', max_views: 2 });
    expect((await visit(t, `/t/${tag.short_id}`, BOT)).status).toBe(200);
    expect((await request(t, 'HEAD', `/t/${tag.short_id}`, { headers: BROWSER })).status).toBe(200);
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(200);
    expect((await visit(t, `/s/${tag.short_id}`)).status).toBe(200);
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(410);
    expect((await visit(t, `/t/${tag.short_id}`, BOT)).status).toBe(410);
    expect(await viewsOf(t, tag.id)).toBe(2);
    // Raising the cap leaves views to show again.
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { max_views: 3 } });
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(200);
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(410);
    // Removing it opens the page for good.
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { max_views: null } });
    expect((await visit(t, `/t/${tag.short_id}`)).status).toBe(200);
  });

  it('never shows more than max_views views to concurrent visitors', async () => {
    const tag = await createTag(t, alice.key, { title: 'Five', max_views: 5 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => visit(t, `/t/${tag.short_id}`)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 410)).toHaveLength(15);
    expect(await viewsOf(t, tag.id)).toBe(5);
  });

  it('previews the page in any state at preview_url, counting nothing, until the address expires', async () => {
    const tag = await createTag(t, alice.key, { title: 'Draft preview', status: 'draft', max_views: 1, password: 'open sesame' });
    expect(tag.preview_url).toMatch(/^http:\/\/tagsvc\.test\/preview\/tag_[0-9a-z]{26}\.\d+\.[\w-]+$/);
    const path = new URL(tag.preview_url).pathname;
    for (let i = 0; i < 3; i++) {
      const preview = await visit(t, path);
      expect(preview.status).toBe(200);
      expect(preview.text).toContain('<h1>Draft preview</h1>');
      expect(preview.text).not.toContain('data-view');
      expect(preview.headers.get('cache-control')).toBe('private, no-store');
      expect(preview.headers.get('x-robots-tag')).toBe('noindex');
    }
    expect(await viewsOf(t, tag.id)).toBe(0);
    // A tampered address, or another tag's id under this MAC, shows nothing.
    expect((await visit(t, `${path.slice(0, -2)}xx`)).status).toBe(404);
    const other = await createTag(t, alice.key, { title: 'Other' });
    expect((await visit(t, path.replace(tag.id, other.id))).status).toBe(404);
    t.clock.advance(2 * HOUR + 1000);
    expect((await visit(t, path)).status).toBe(404);
    // A new read hands out a new address.
    const fresh = (await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key })).body.data.preview_url;
    expect(fresh).not.toBe(tag.preview_url);
    expect((await visit(t, new URL(fresh).pathname)).status).toBe(200);
  });

  it('validates the schedule, the cap and the expired address, naming the field', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ status: 'hidden' }, 'status'],
      [{ publish_at: 'tomorrow' }, 'publish_at'],
      [{ publish_at: '2026-12-01T09:00:00' }, 'publish_at'],
      [{ expires_at: '2026-13-01T09:00:00Z' }, 'expires_at'],
      [{ publish_at: '2026-12-02T09:00:00Z', expires_at: '2026-12-01T09:00:00Z' }, 'expires_at'],
      [{ max_views: 0 }, 'max_views'],
      [{ max_views: 1.5 }, 'max_views'],
      [{ expired_url: 'http://example.com/' }, 'expired_url'],
      [{ expired_url: 'javascript:alert(1)' }, 'expired_url'],
      [{ theme: { preset: 'neon' } }, 'theme.preset'],
      [{ theme: { accent_color: 'red' } }, 'theme.accent_color'],
      [{ password: 'abc' }, 'password'],
      [{ password: 'x'.repeat(129) }, 'password'],
    ];
    for (const [body, field] of bad) {
      expectError(
        await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Bad', ...body } }),
        400,
        'validation_error',
        field,
      );
    }
    // An update is checked against the tag as it is: an expiry before its stored publication.
    const tag = await createTag(t, alice.key, { title: 'Scheduled', publish_at: '2030-01-01T00:00:00Z' });
    const response = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { expires_at: '2029-01-01T00:00:00Z' } });
    expectError(response, 400, 'validation_error', 'expires_at');
  });

  it('finds every refused field of one input at once (the dashboard shows them all; the API answers the first)', async () => {
    const actor = await actorOfKey(t.services, alice.key);
    const input = {
      title: ' ',
      short_id: 'docs',
      publish_at: 'soon',
      expired_url: 'http://x.test',
      password: 'abc',
      theme: { accent_color: 'red' },
    };
    const refusal = await createTag_(t.services, actor, input).catch((error: unknown) => error);
    expect(problemsOf(refusal as ApiError).map((problem) => problem.details.field)).toEqual([
      'title',
      'short_id',
      'publish_at',
      'expired_url',
      'theme.accent_color',
      'password',
    ]);
    expectError(await request(t, 'POST', '/v1/tags', { key: alice.key, body: input }), 400, 'validation_error', 'title');
  });
});
