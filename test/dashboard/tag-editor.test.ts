import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as tags from '../../src/features/tags/index.js';
import { request, actorOf } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { UA } from '../analytics/support.js';
import { upload } from '../files/helpers.js';
import { image } from '../files/samples.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole, type CookieJar } from './support.js';

/** A tag's Edit page: blocks of every type, their order, the live preview, and the no-script form. */
describe('dashboard tag editor', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let aliceJar: CookieJar;

  const contentOf = async (id: string) => (await request(t, 'GET', `/v1/tags/${id}`, { key: alice.key })).body.data;

  beforeAll(async () => {
    aliceJar = await signInHttp(t, alice.email);
  });

  const addBlock = (page: Page, label: string) =>
    page.getByRole('group', { name: 'Add a block' }).getByRole('button', { name: label, exact: true }).click();
  const preview = (page: Page) => page.frameLocator('iframe[name="tag-preview"]');
  /** The public page's blocks, in order, as tag names and texts. */
  const publicBlocks = (page: Page) =>
    page.locator('article > :not(h1)').evaluateAll((elements) => elements.map((e) => `${e.tagName.toLowerCase()}:${e.textContent}`));

  it('adds blocks of every kind, previews them unsaved, saves, and the public page shows them in order', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Cafe' });
    const { context, page } = await newPage(holder.browser, { userAgent: UA.chromeWindows });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    await expect(preview(page).locator('h1').textContent()).resolves.toBe('Cafe');

    await addBlock(page, 'Heading');
    await page.locator('#block-0-content').fill('Opening hours');
    await page.locator('#block-0-level').selectOption('3');
    // The preview follows the form, unsaved: the public page's own rendering (block level 3 → h4).
    await preview(page).locator('h4', { hasText: 'Opening hours' }).waitFor();
    expect((await contentOf(tag.id)).content).toEqual([]);

    await addBlock(page, 'Text');
    await page.locator('#block-1-content').fill('Mon–Fri 9–5');
    await page.getByRole('checkbox', { name: 'Bold' }).check();
    await addBlock(page, 'Callout');
    await page.locator('#block-2-content').fill('Closed on holidays');
    await page.locator('#block-2-style').selectOption('warning');
    await addBlock(page, 'Link');
    await page.locator('#block-3-url').fill('https://example.com/book');
    await page.locator('#block-3-label').fill('Book a table');
    await addBlock(page, 'Divider');
    await addBlock(page, 'HTML');
    await page.locator('#block-5-content').fill('<p>Hi <b>there</b><script>alert(1)</script></p>');
    await preview(page).locator('.html-block b', { hasText: 'there' }).waitFor();
    // Sanitized exactly as saving would; styled by the public page's stylesheet.
    await expect(preview(page).locator('script').count()).resolves.toBe(0);
    await expect(
      preview(page)
        .locator('main')
        .evaluate((main) => getComputedStyle(main).maxWidth),
    ).resolves.toBe('672px');
    await expectAccessible(page);
    await screenshots(page, 'tag-editor');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/${tag.id}/edit?done=saved`);
    const saved = await contentOf(tag.id);
    expect(saved.content.map((block: { type: string }) => block.type)).toEqual(['heading', 'text', 'callout', 'link', 'divider', 'html']);
    expect(saved.content[0]).toMatchObject({ content: 'Opening hours', level: 3 });
    expect(saved.content[1]).toMatchObject({ content: 'Mon–Fri 9–5', format: { bold: true, italic: false } });
    expect(saved.content[2]).toMatchObject({ style: 'warning' });
    expect(saved.content[5].content).not.toContain('script');

    await page.goto(`${t.baseUrl}/t/${tag.short_id}`);
    expect(await publicBlocks(page)).toEqual([
      'h4:Opening hours',
      'p:Mon–Fri 9–5',
      'aside:Closed on holidays',
      'a:Book a table',
      'hr:',
      'div:Hi there',
    ]);
    await expect(page.locator('strong', { hasText: 'Mon–Fri 9–5' }).count()).resolves.toBe(1);
    // Through the counted redirect, which sends the visitor on to the address saved.
    const bookLink = `${t.config.publicBaseUrl}/t/${tag.short_id}/l/${saved.content[3].id as string}`;
    await expect(page.getByRole('link', { name: 'Book a table' }).getAttribute('href')).resolves.toBe(bookLink);
    expect(saved.content[3].url).toBe('https://example.com/book');

    // Reorder and remove without a reload; the ids of kept blocks stay.
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    await page.locator('li[data-block]').nth(1).getByRole('button', { name: 'Move up' }).click();
    await page.locator('li[data-block]').nth(4).getByRole('button', { name: 'Remove' }).click();
    await page.locator('li[data-block]').nth(2).getByRole('button', { name: 'Move down' }).click();
    await expect(page.locator('#block-0-content').inputValue()).resolves.toBe('Mon–Fri 9–5');
    await preview(page).locator('article > p:first-of-type', { hasText: 'Mon–Fri 9–5' }).waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/${tag.id}/edit?done=saved`);
    await page.goto(`${t.baseUrl}/t/${tag.short_id}`);
    expect(await publicBlocks(page)).toEqual([
      'p:Mon–Fri 9–5',
      'h4:Opening hours',
      'a:Book a table',
      'aside:Closed on holidays',
      'div:Hi there',
    ]);
    const reordered = await contentOf(tag.id);
    expect(reordered.content.map((block: { id: string }) => block.id)).toEqual(
      [1, 0, 3, 2, 5].map((index) => saved.content[index].id as string),
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an image block offers the tag’s image files and shows the one chosen', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Gallery' });
    const uploaded = await upload(t, alice.key, tag.id, 'terrace.png', await image('png', 40, 30));
    expect(uploaded.status, uploaded.text).toBe(201);
    const file = uploaded.body.data as { id: string };
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    await addBlock(page, 'Image');
    await page.getByLabel('Image', { exact: true }).selectOption({ label: 'terrace.png' });
    await page.getByLabel('Alternative text').fill('The terrace at noon');
    await preview(page).getByRole('img', { name: 'The terrace at noon' }).waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/${tag.id}/edit?done=saved`);
    expect((await contentOf(tag.id)).content).toMatchObject([{ type: 'image', file_id: file.id, alt: 'The terrace at noon' }]);
    await page.goto(`${t.baseUrl}/t/${tag.short_id}`);
    const shown = page.getByRole('img', { name: 'The terrace at noon' });
    // A lazy image need not have loaded when the page's load event fires: wait for it.
    await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(40);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('edits settings with the blocks: title, visibility, access log', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Before', content: [{ type: 'divider' }] });
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/edit`);
    await page.getByLabel('Title').fill('After');
    await preview(page).locator('h1', { hasText: 'After' }).waitFor();
    await page.getByLabel('Visibility').selectOption('private');
    await page.getByLabel('Keep an access log').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/tags/${tag.id}/edit?done=saved`);
    expect(await contentOf(tag.id)).toMatchObject({
      title: 'After',
      permissions: { read: 'private' },
      access_logging: true,
      content: [{ type: 'divider', id: tag.content[0]!.id }],
    });
    await context.close();
  });

  describe('without scripts', () => {
    /** The edit form's fields for these blocks, as the page names them. */
    function form(csrf: string, title: string, blocks: Array<Record<string, string>>, extra: Record<string, string> = {}) {
      const fields: Record<string, string> = { _csrf: csrf, title, read: 'public', write: 'owner', folder: '', ...extra };
      blocks.forEach((block, index) => {
        for (const [name, value] of Object.entries(block)) fields[`blocks[${index}][${name}]`] = value;
      });
      return fields;
    }

    it('Add, Move and Remove answer with the form changed, saving nothing; Save saves what the form shows', async () => {
      const tag = await tags.createTag(t.services, actorOf(alice), { title: 'No script' });
      const editPath = `/dashboard/tags/${tag.id}/edit`;
      const csrf = csrfOf(await get(t, editPath, aliceJar));
      const heading = { type: 'heading', id: '', content: 'First', level: '2' };
      const text = { type: 'text', id: '', content: 'Second' };

      const added = await post(t, editPath, aliceJar, { ...form(csrf, 'No script', [heading]), op: 'add:callout' });
      expect(added.status).toBe(200);
      expect(added.text).toContain('name="blocks[1][type]" value="callout"');
      expect(added.text).toContain('value="First"');

      const moved = await post(t, editPath, aliceJar, { ...form(csrf, 'No script', [heading, text]), op: 'up:1' });
      expect(moved.text.indexOf('>Second</textarea>')).toBeLessThan(moved.text.indexOf('value="First"'));
      expect(moved.text).toContain('name="blocks[0][type]" value="text"');

      const removed = await post(t, editPath, aliceJar, { ...form(csrf, 'No script', [heading, text]), op: 'remove:0' });
      expect(removed.text).not.toContain('value="First"');
      expect(removed.text).toContain('name="blocks[0][type]" value="text"');
      expect((await contentOf(tag.id)).content).toEqual([]);

      const saved = await post(t, editPath, aliceJar, { ...form(csrf, 'No script', [text, heading]), op: 'save' });
      expect(saved.status).toBe(303);
      expect(saved.headers.get('location')).toBe(`${editPath}?done=saved`);
      expect((await contentOf(tag.id)).content).toMatchObject([
        { type: 'text', content: 'Second' },
        { type: 'heading', content: 'First', level: 2 },
      ]);
    });

    it('refuses a bad block or setting under its field, 400, writing nothing', async () => {
      const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Kept', content: [{ type: 'text', content: 'kept' }] });
      const editPath = `/dashboard/tags/${tag.id}/edit`;
      const csrf = csrfOf(await get(t, editPath, aliceJar));
      const good = { type: 'text', id: tag.content[0]!.id, content: 'changed' };

      const badUrl = await post(
        t,
        editPath,
        aliceJar,
        form(csrf, 'Renamed', [good, { type: 'link', url: 'javascript:alert(1)', label: 'x' }]),
      );
      expect(badUrl.status).toBe(400);
      expect(badUrl.text).toContain('id="block-1-url-error"');
      expect(badUrl.text).toContain('Must be an http, https, tel, mailto or sms URL.');
      expect(badUrl.text).toContain('Nothing was saved');
      // The form comes back as sent.
      expect(badUrl.text).toContain('value="javascript:alert(1)"');
      expect(badUrl.text).toContain('value="Renamed"');

      const badLevel = await post(t, editPath, aliceJar, form(csrf, 'Renamed', [good, { type: 'heading', content: 'h', level: '9' }]));
      expect(badLevel.status).toBe(400);
      expect(badLevel.text).toContain('id="block-1-level-error"');

      const badImage = await post(t, editPath, aliceJar, form(csrf, 'Renamed', [{ type: 'image', file_id: 'nope', alt: '' }]));
      expect(badImage.status).toBe(400);
      expect(badImage.text).toContain('id="block-0-file_id-error"');

      const badType = await post(t, editPath, aliceJar, form(csrf, 'Renamed', [{ type: 'video', content: 'x' }]));
      expect(badType.status).toBe(400);
      expect(badType.text).toContain('class="block block-invalid"');

      const tooLong = await post(t, editPath, aliceJar, form(csrf, 'Renamed', [{ ...good, content: 'x'.repeat(20_001) }]));
      expect(tooLong.status).toBe(400);
      expect(tooLong.text).toContain('id="block-0-content-error"');

      const noTitle = await post(t, editPath, aliceJar, form(csrf, ' ', [good]));
      expect(noTitle.status).toBe(400);
      expect(noTitle.text).toContain('id="field-title-error"');

      expect(await contentOf(tag.id)).toMatchObject({ title: 'Kept', content: [{ type: 'text', content: 'kept' }] });
    });

    it('Preview renders the unsaved form with the public page’s code, sanitized, framed only by the dashboard', async () => {
      const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Saved title' });
      const previewPath = `/dashboard/tags/${tag.id}/preview`;
      const csrf = csrfOf(await get(t, `/dashboard/tags/${tag.id}/edit`, aliceJar));

      const saved = await get(t, previewPath, aliceJar);
      expect(saved.status).toBe(200);
      expect(saved.text).toContain('<h1>Saved title</h1>');
      const csp = saved.headers.get('content-security-policy')!;
      expect(csp).toContain("frame-ancestors 'self'");
      expect(csp).toContain('sandbox');
      expect(csp).not.toContain('script-src');
      expect(saved.headers.get('x-frame-options')).toBe('SAMEORIGIN');

      const unsaved = await post(
        t,
        previewPath,
        aliceJar,
        form(csrf, 'Draft title', [
          { type: 'callout', content: 'Draft note', style: 'success' },
          { type: 'html', content: '<p onclick="x()">Safe<img src=x onerror=alert(1)></p><script>alert(2)</script>' },
        ]),
      );
      expect(unsaved.status).toBe(200);
      expect(unsaved.text).toContain('<h1>Draft title</h1>');
      expect(unsaved.text).toContain('callout-success');
      expect(unsaved.text).not.toMatch(/onclick|onerror|<script/);
      // A preview is not a view: the page's beacon is left out.
      expect(unsaved.text).not.toContain('beacon');
      expect(await contentOf(tag.id)).toMatchObject({ title: 'Saved title', content: [] });

      const invalid = await post(t, previewPath, aliceJar, form(csrf, 'Draft', [{ type: 'heading', content: 'h', level: '0' }]));
      expect(invalid.status).toBe(400);
      expect(invalid.text).toContain('Block 1 level must be an integer from 1 to 6.');
    });

    it('another user’s tag: its edit page, Save and preview answer 404 and change nothing', async () => {
      const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Mine' });
      const jar = await signInHttp(t, bob.email);
      const csrf = csrfOf(await get(t, '/dashboard/tags', jar));
      expect((await get(t, `/dashboard/tags/${tag.id}/edit`, jar)).status).toBe(404);
      expect((await get(t, `/dashboard/tags/${tag.id}/preview`, jar)).status).toBe(404);
      const save = await post(t, `/dashboard/tags/${tag.id}/edit`, jar, form(csrf, 'Taken', [{ type: 'divider' }]));
      expect(save.status).toBe(404);
      const previewed = await post(t, `/dashboard/tags/${tag.id}/preview`, jar, form(csrf, 'Peek', []));
      expect(previewed.status).toBe(404);
      expect(previewed.text).not.toContain('Mine');
      expect(await contentOf(tag.id)).toMatchObject({ title: 'Mine', content: [] });
    });
  });
});
