import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { UA } from '../analytics/support.js';
import { createTag, upload } from '../files/helpers.js';
import { image, pdf } from '../files/samples.js';

/**
 * A public page as a visitor's browser shows it: link buttons, an image, the attached PDF
 * downloaded by a click, and no CSP violation or script error on the way. Screenshots go to
 * SCREENSHOT_DIR, else to a temporary directory named in the test's output.
 */
describe('a public page in the browser', () => {
  const holder = useBrowser();
  const t = useApp();
  const owner = useAccount(t);
  let tag: { id: string; short_id: string };
  const menu = pdf();

  beforeAll(async () => {
    tag = await createTag(t, owner.key, { title: 'Harbour Café' });
    const photo = await upload(t, owner.key, tag.id, 'terrace.jpg', await image('jpeg', 1200, 600));
    expect(photo.status, photo.text).toBe(201);
    const attached = await upload(t, owner.key, tag.id, 'menu.pdf', menu, { name: 'Lunch menu.pdf' });
    expect(attached.status, attached.text).toBe(201);
    const content = [
      { type: 'image', file_id: photo.body.data.id, alt: 'The terrace at noon' },
      { type: 'text', content: 'Coffee, fresh pastries and lunch by the water. Open every day from 8 to 18.' },
      { type: 'link', url: 'https://example.com/book', label: 'Book a table' },
      { type: 'link', url: 'https://example.com/map', label: 'Find us' },
      { type: 'link', url: 'https://example.com/instagram', label: 'Instagram' },
    ];
    const updated = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: owner.key, body: { content } });
    expect(updated.status, updated.text).toBe(200);
  });

  it('shows link buttons, the image and the files, downloads the PDF on a click, with no CSP violation', async () => {
    const { context, page } = await newPage(holder.browser, { userAgent: UA.chromeWindows, viewport: { width: 1280, height: 900 } });
    // Every console error counts here: a CSP violation, a script error, a missing asset.
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    const response = await page.goto(`${t.baseUrl}/t/${tag.short_id}`);
    expect(response!.status()).toBe(200);
    await page.waitForLoadState('networkidle');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Harbour Café');

    // The image loaded through the page's file address.
    const loaded = await page.getByRole('img', { name: 'The terrace at noon' }).evaluate((img: HTMLImageElement) => img.naturalWidth);
    expect(loaded).toBe(1200);

    // Link blocks are buttons: as wide as the content, tall enough to tap, styled by page.css.
    const article = (await page.locator('article').boundingBox())!;
    for (const label of ['Book a table', 'Find us', 'Instagram']) {
      const button = page.getByRole('link', { name: label });
      const box = (await button.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.width).toBeGreaterThan(article.width * 0.8);
      expect(await button.evaluate((a) => getComputedStyle(a).textDecorationLine)).toBe('none');
    }

    const dir = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'tagsvc-page-'));
    await page.screenshot({ path: join(dir, 'public-page-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: join(dir, 'public-page-phone.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(dir, 'public-page-dark-phone.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    console.log(`public page screenshots: ${dir}`);

    await expectAccessible(page);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Lunch menu\.pdf/ }).click()]);
    expect(download.suggestedFilename()).toBe('Lunch menu.pdf');
    expect(readFileSync((await download.path())!).equals(menu)).toBe(true);

    expect(problems).toEqual([]);
    await context.close();
  });
});
