import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as accounts from '../../src/features/accounts/index.js';
import * as tags from '../../src/features/tags/index.js';
import { useApp } from '../helpers/harness.js';
import { newPage, useBrowser } from '../helpers/browser.js';
import { PASSWORD, screenshots, signInBrowser, watchConsole } from './support.js';

const PHONE = { width: 375, height: 812 };

/** Where the current item of a strip (`.nav` or `.tabs`) is on the screen, and the page's own scroll. */
async function currentItem(page: Page, strip: '.nav' | '.tabs') {
  const current = page.locator(`${strip} [aria-current="page"]`);
  await expect(current.count(), `one current item in ${strip}`).resolves.toBe(1);
  const box = (await current.boundingBox())!;
  const label = (await current.textContent())!.trim();
  const scrolled = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
  return { label, left: box.x, right: box.x + box.width, scrolled };
}

/** The current item of `strip` lies wholly on screen, and the page itself did not scroll to show it. */
async function expectOnScreen(page: Page, strip: '.nav' | '.tabs', label: string) {
  const item = await currentItem(page, strip);
  expect(item.label).toBe(label);
  expect(item.left, `${label} starts on screen`).toBeGreaterThanOrEqual(0);
  expect(item.right, `${label} ends on screen`).toBeLessThanOrEqual(PHONE.width);
  expect(item.scrolled).toEqual({ x: 0, y: 0 });
}

/**
 * At 375 px the nav and the tag and Admin tabs are strips that scroll sideways; whatever the
 * page, its own item is on screen when it opens (dashboard.js scrolls the strip to it).
 */
describe('dashboard navigation on a phone', () => {
  const holder = useBrowser();
  const t = useApp();
  let owner: { id: string; email: string };
  let tagId: string;

  beforeAll(async () => {
    owner = await accounts.createFirstAccount(t.services, { email: 'owner@example.com', password: PASSWORD });
    const actor = accounts.actorOfUser({ userId: owner.id, email: owner.email, plan: 'enterprise' });
    tagId = (await tags.createTag(t.services, actor, { title: 'Menu of the day' })).id;
  });

  it('shows the current nav item of API Keys, Organizations and Admin, and the current tab of a tag and of Admin', async () => {
    const { context, page } = await newPage(holder.browser, { viewport: PHONE });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, owner.email);
    // The strip is wider than the screen: without scrolling, its last items are off it.
    const nav = page.locator('.nav');
    expect(await nav.evaluate((strip) => strip.scrollWidth > strip.clientWidth)).toBe(true);

    for (const [path, label] of [
      ['/dashboard/keys', 'API Keys'],
      ['/dashboard/organizations', 'Organizations'],
      ['/dashboard/admin', 'Admin'],
    ]) {
      await page.goto(`${t.baseUrl}${path}`);
      await expectOnScreen(page, '.nav', label!);
    }

    await page.goto(`${t.baseUrl}/dashboard/admin/organizations`);
    await expectOnScreen(page, '.nav', 'Admin');
    await expectOnScreen(page, '.tabs', 'Organizations');

    await page.goto(`${t.baseUrl}/dashboard/tags/${tagId}/qr`);
    await expectOnScreen(page, '.nav', 'Tags');
    expect(await page.locator('.tabs').evaluate((strip) => strip.scrollWidth > strip.clientWidth)).toBe(true);
    await expectOnScreen(page, '.tabs', 'QR code');
    await screenshots(page, 'narrow-nav-tag');

    // The first item stays where it is: nothing scrolls when there is no need.
    await page.goto(`${t.baseUrl}/dashboard`);
    expect(await nav.evaluate((strip) => strip.scrollLeft)).toBe(0);
    await expectOnScreen(page, '.nav', 'Home');
    expect(problems).toEqual([]);
    await context.close();
  });
});
