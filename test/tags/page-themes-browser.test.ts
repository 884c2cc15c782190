import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { createTag, upload } from '../files/helpers.js';
import { pdf } from '../files/samples.js';
import { contrastRatio } from '../../src/features/pages/contrast.js';

/**
 * Each preset in a visitor's browser, on a phone and a desktop: no CSP violation (the theme is
 * classes and stylesheets, never an inline style), no serious axe finding (its colour-contrast
 * rule included), and link buttons whose text reads at 4.5:1 on their background as rendered.
 * Screenshots of every preset at 375 px go to SCREENSHOT_DIR.
 */

const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 900 };

const THEMES = [
  { preset: 'default' },
  { preset: 'minimal' },
  { preset: 'bold' },
  { preset: 'dark' },
  // Mid-tones: neither near-white nor near-black text reaches 4.5:1 on them as given.
  { preset: 'bold', accent_color: '#3c9f5c' },
  { preset: 'dark', accent_color: '#777777' },
  { preset: 'default', accent_color: '#ffd400' },
] as const;

const nameOf = (theme: (typeof THEMES)[number]) =>
  'accent_color' in theme ? `${theme.preset}-${theme.accent_color.slice(1)}` : theme.preset;

/** An rgb()/rgba() colour as #rrggbb, or undefined when fully transparent. */
function hex(css: string): string | undefined {
  const [r, g, b, a] = (css.match(/[\d.]+/g) ?? []).map(Number);
  if (a === 0 || r === undefined) return undefined;
  return `#${[r, g, b].map((c) => Math.round(c!).toString(16).padStart(2, '0')).join('')}`;
}

/** Each link button's text colour and the background it is drawn on (its own, else the nearest painted ancestor's). */
async function buttonColours(page: Page): Promise<Array<{ label: string; color: string; background: string }>> {
  return page.locator('a.button').evaluateAll((buttons) =>
    buttons.map((button) => {
      let element: Element | null = button;
      let background = 'rgba(0, 0, 0, 0)';
      while (element) {
        const colour = getComputedStyle(element).backgroundColor;
        if (!/^rgba\(.*, 0\)$/.test(colour) && colour !== 'transparent') {
          background = colour;
          break;
        }
        element = element.parentElement;
      }
      return { label: button.textContent ?? '', color: getComputedStyle(button).color, background };
    }),
  );
}

/** Link buttons at AA as rendered, nothing past the screen's edge, and axe content. */
async function expectReadable(page: Page, label: string): Promise<void> {
  const colours = await buttonColours(page);
  expect(colours.length).toBe(2);
  for (const { label: text, color, background } of colours) {
    const ratio = contrastRatio(hex(color)!, hex(background)!);
    expect(ratio, `${label}: "${text}" ${color} on ${background}`).toBeGreaterThanOrEqual(4.5);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, label).toBe(0);
  await expectAccessible(page);
}

describe('themed pages in the browser', () => {
  const holder = useBrowser();
  const t = useApp();
  const owner = useAccount(t);
  const tags = new Map<string, string>();
  const dir = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'tagsvc-themes-'));

  beforeAll(async () => {
    for (const theme of THEMES) {
      const tag = await createTag(t, owner.key, {
        title: 'Harbour Café',
        theme,
        content: [
          { type: 'text', content: 'Coffee, fresh pastries and lunch by the water. Open every day from 8 to 18.' },
          { type: 'link', url: 'https://example.com/book', label: 'Book a table' },
          { type: 'link', url: 'https://example.com/map', label: 'Find us' },
          { type: 'heading', content: 'This week', level: 2 },
          { type: 'html', content: '<p>Live jazz on Friday from 19:00, <a href="https://example.com/jazz">details here</a>.</p>' },
          { type: 'callout', content: 'The terrace closes at 17:00 on Sundays.', style: 'warning' },
          { type: 'divider' },
        ],
      });
      const menu = await upload(t, owner.key, tag.id, 'menu.pdf', pdf(), { name: 'Lunch menu.pdf' });
      expect(menu.status, menu.text).toBe(201);
      tags.set(nameOf(theme), tag.short_id);
    }
    console.log(`theme screenshots: ${dir}`);
  });

  for (const theme of THEMES) {
    const name = nameOf(theme);
    it(`shows ${name} without a CSP violation, accessible, its buttons at AA, at 375 and 1280 px`, async () => {
      const { context, page } = await newPage(holder.browser, { viewport: PHONE });
      // Recorded by the browser itself: any style the CSP refused (securitypolicyviolation), and console errors.
      await page.addInitScript(() => {
        const seen: string[] = [];
        (globalThis as unknown as { violations: string[] }).violations = seen;
        document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
      });
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));

      const response = await page.goto(`${t.baseUrl}/t/${tags.get(name)}`);
      expect(response!.status()).toBe(200);
      expect(response!.headers()['content-security-policy']).not.toContain('unsafe-inline');
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: join(dir, `theme-${name}-phone.png`), fullPage: true });
      await expectReadable(page, `${name} at 375`);
      await page.setViewportSize(DESKTOP);
      await expectReadable(page, `${name} at 1280`);
      await page.screenshot({ path: join(dir, `theme-${name}-desktop.png`), fullPage: true });
      if (theme.preset === 'default') {
        // The default follows the visitor's dark setting, with its accent's shade for dark pages.
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.setViewportSize(PHONE);
        await expectReadable(page, `${name} dark`);
        await page.screenshot({ path: join(dir, `theme-${name}-dark-phone.png`), fullPage: true });
      }
      expect(await page.evaluate(() => (globalThis as unknown as { violations: string[] }).violations)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  it('keeps the presets apart: each paints its own page', async () => {
    const { context, page } = await newPage(holder.browser, { viewport: PHONE });
    const looks = new Map<string, string>();
    for (const preset of ['default', 'minimal', 'bold', 'dark']) {
      await page.goto(`${t.baseUrl}/t/${tags.get(preset)}`);
      const look = await page.evaluate(() => {
        const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
        return [
          style('body').backgroundColor,
          style('body').color,
          style('article').borderTopWidth,
          style('h1').fontSize,
          style('a.button').backgroundColor,
        ].join(' | ');
      });
      looks.set(preset, look);
    }
    expect(new Set(looks.values()).size, JSON.stringify([...looks])).toBe(4);
    await context.close();
    // And the stylesheet each accent page links is there.
    const page2 = await request(t, 'GET', `/t/${tags.get('bold-3c9f5c')}`);
    const accent = /href="(\/assets\/accent\/[^"]+)"/.exec(page2.text)![1]!;
    expect((await request(t, 'GET', accent)).status).toBe(200);
  });
});
