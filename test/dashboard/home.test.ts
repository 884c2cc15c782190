import { describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { get, screenshots, signInBrowser, signInHttp } from './support.js';

/** Home: the workspace's most recently changed tags at a glance. */
describe('dashboard home', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');

  it('invites a new user to make a first tag', async () => {
    const page = await get(t, '/dashboard', await signInHttp(t, alice.email));
    expect(page.status).toBe(200);
    expect(page.text).toContain('No tags here yet.');
    expect(page.text).toContain('href="/dashboard/tags/new"');
  });

  it('lists the five most recently changed tags, newest first, and counts them all', async () => {
    const ids: string[] = [];
    for (let n = 1; n <= 7; n++) {
      ids.push((await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: `Poster ${n}` } })).body.data.id);
    }
    await request(t, 'PUT', `/v1/tags/${ids[0]}`, { key: alice.key, body: { title: 'Poster 1, revised' } });

    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, alice.email);
    const recent = page.getByRole('region', { name: 'Recent tags' });
    await expect(recent.getByRole('listitem').getByRole('link').allTextContents()).resolves.toEqual([
      'Poster 1, revised',
      'Poster 7',
      'Poster 6',
      'Poster 5',
      'Poster 4',
    ]);
    await expect(recent.getByRole('link', { name: 'All 7 tags' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'home');
    await recent.getByRole('link', { name: 'Poster 7' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/${ids[6]}`);
    await context.close();
  });
});
