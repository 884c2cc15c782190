import { describe, expect, it } from 'vitest';
import { rollUpViews } from '../../src/features/analytics/view-rollup.js';
import { expectError, request, type TestApp } from '../helpers/app.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { upload } from '../files/helpers.js';
import { image } from '../files/samples.js';

/** The password gate: nothing of the page before it is unlocked, a cookie per page, a limit on tries. */

const BROWSER = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' };

async function createTag(t: TestApp, key: string, body: Record<string, unknown>) {
  const response = await request(t, 'POST', '/v1/tags', { key, body });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: string; short_id: string; password_protected: boolean };
}

async function viewsOf(t: TestApp, tagId: string): Promise<number> {
  await rollUpViews(t.database.db);
  const rows = await t.database.db.selectFrom('views').select('id').where('tag_id', '=', tagId).execute();
  return rows.length;
}

function unlock(t: TestApp, shortId: string, password: string, headers: Record<string, string> = {}) {
  return request(t, 'POST', `/t/${shortId}/unlock`, {
    rawBody: new URLSearchParams({ password, via: 'page' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...BROWSER, ...headers },
  });
}

describe('password-protected pages', () => {
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const chromium = useBrowser();

  it('stores only a hash, reads as password_protected, and never returns the password', async () => {
    const tag = await createTag(t, alice.key, { title: 'Board minutes', password: 'correct horse' });
    expect(tag.password_protected).toBe(true);
    const read = await request(t, 'GET', `/v1/tags/${tag.id}`, { key: alice.key });
    expect(read.text).not.toContain('correct horse');
    expect(read.body.data).not.toHaveProperty('password');
    const row = await t.database.db.selectFrom('tags').select('password_hash').where('id', '=', tag.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('correct horse');
  });

  it('answers 401 with a form and none of the content, then shows the page once unlocked, counting it then', async () => {
    const tag = await createTag(t, alice.key, {
      title: 'Board minutes',
      password: 'correct horse',
      content: [{ type: 'text', content: 'Quarterly numbers' }],
    });
    const file = await upload(t, alice.key, tag.id, 'chart.png', await image('png', 8, 8));
    const locked = await request(t, 'GET', `/t/${tag.short_id}`, { headers: BROWSER });
    expect(locked.status).toBe(401);
    expect(locked.text).toContain('<form method="post" action="/t/');
    expect(locked.text).not.toContain('Board minutes');
    expect(locked.text).not.toContain('Quarterly numbers');
    expect(locked.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(locked.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect((await request(t, 'GET', `/t/${tag.short_id}/files/${file.body.data.id}`)).status).toBe(401);
    expect(await viewsOf(t, tag.id)).toBe(0);

    const wrong = await unlock(t, tag.short_id, 'battery staple');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That password is not right');
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const right = await unlock(t, tag.short_id, 'correct horse');
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(`/t/${tag.short_id}`);
    const cookie = right.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const pair = cookie.split(';')[0]!;
    const shown = await request(t, 'GET', `/t/${tag.short_id}`, { headers: { ...BROWSER, cookie: pair } });
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Quarterly numbers');
    expect((await request(t, 'GET', `/t/${tag.short_id}/files/${file.body.data.id}`, { headers: { cookie: pair } })).status).toBe(200);
    // Among other cookies it still opens the page; a look-alike name or a cut value does not.
    expect((await request(t, 'GET', `/t/${tag.short_id}`, { headers: { cookie: `a=1; ${pair}; b=2` } })).status).toBe(200);
    expect((await request(t, 'GET', `/t/${tag.short_id}`, { headers: { cookie: `x${pair}` } })).status).toBe(401);
    expect((await request(t, 'GET', `/t/${tag.short_id}`, { headers: { cookie: pair.slice(0, -1) } })).status).toBe(401);
    expect(await viewsOf(t, tag.id)).toBe(1);

    // The cookie opens this page only, and only until the password changes.
    const other = await createTag(t, alice.key, { title: 'Other', password: 'correct horse' });
    expect((await request(t, 'GET', `/t/${other.short_id}`, { headers: { cookie: pair } })).status).toBe(401);
    await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { password: 'new password' } });
    expect((await request(t, 'GET', `/t/${tag.short_id}`, { headers: { cookie: pair } })).status).toBe(401);
    // null removes the password.
    const opened = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: alice.key, body: { password: null } });
    expect(opened.body.data.password_protected).toBe(false);
    expect((await request(t, 'GET', `/t/${tag.short_id}`)).status).toBe(200);
  });

  it('refuses the 11th try in a minute for one address and page with 429, the right password included', async () => {
    const tag = await createTag(t, alice.key, { title: 'Vault', password: 'right one' });
    const from = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 10; i++) expect((await unlock(t, tag.short_id, `wrong ${i}`, from)).status).toBe(401);
    const limited = await unlock(t, tag.short_id, 'right one', from);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.text).toContain('Too many tries');
    // Another page is counted apart.
    const other = await createTag(t, alice.key, { title: 'Other vault', password: 'right one' });
    expect((await unlock(t, other.short_id, 'right one', from)).status).toBe(303);
    t.clock.advance(61_000);
    expect((await unlock(t, tag.short_id, 'right one', from)).status).toBe(303);
  });

  it('unlocks through the form in a browser, saying when the password is wrong', async () => {
    const tag = await createTag(t, alice.key, {
      title: 'Team offsite',
      password: 'mountain air',
      content: [{ type: 'text', content: 'Bus at 8' }],
    });
    const { context, page } = await newPage(chromium.browser, { viewport: { width: 375, height: 740 } });
    try {
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      const first = await page.goto(`${t.baseUrl}/t/${tag.short_id}`);
      expect(first?.status()).toBe(401);
      await expectAccessible(page);
      await page.getByLabel('Password').fill('wrong guess');
      await page.getByRole('button', { name: 'Show the page' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('not right');
      expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel('Password').fill('mountain air');
      await page.getByRole('button', { name: 'Show the page' }).click();
      await page.waitForURL(`${t.baseUrl}/t/${tag.short_id}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Team offsite');
      expect(await page.textContent('body')).toContain('Bus at 8');
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name.startsWith('tagsvc_unlock_'))?.httpOnly).toBe(true);
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('validates the password on create and update', async () => {
    expectError(
      await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'x', password: 'abc' } }),
      400,
      'validation_error',
      'password',
    );
    expectError(
      await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'x', password: 1234 } }),
      400,
      'validation_error',
      'password',
    );
  });
});
