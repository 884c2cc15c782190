import { describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { screenshots, signInBrowser, watchConsole } from '../dashboard/support.js';

/** The Audit log page in a browser: reached from the nav, filtered, downloaded. */
describe('dashboard audit log', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'enterprise');

  it('lists the changes, filters them by action and downloads them as CSV', async () => {
    for (const title of ['Reception', 'Meeting room 2', 'Café']) {
      expect((await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title } })).status).toBe(201);
    }
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/audit-log`);
    await expect(page.getByRole('heading', { name: 'Audit log', level: 1 }).isVisible()).resolves.toBe(true);
    const rows = page.getByRole('region', { name: 'Audit log' }).getByRole('row');
    // The heading row, then the newest first: the sign-in, the three tags, the key's and the user's creation.
    await expect(rows.count()).resolves.toBe(7);
    await expect(rows.nth(1).textContent()).resolves.toContain('user.signed_in');
    await expectAccessible(page);
    await screenshots(page, 'audit-log');

    await page.getByLabel('Action').selectOption('tag.created');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/action=tag.created/);
    await expect(rows.count()).resolves.toBe(4);
    await expect(page.getByLabel('Action').inputValue()).resolves.toBe('tag.created');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('audit-log.csv');
    const csv = await (await download.createReadStream()).toArray();
    const lines = Buffer.concat(csv).toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).every((line) => line.includes(',tag.created,key,'))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});
