import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createAccount, createKey, request, type ApiResponse, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { upload } from '../files/helpers.js';
import { image } from '../files/samples.js';

/** The public pages /t/{short_id} and /s/{short_id}: rendering, headers, XSS, visibility, freshness. */

interface CreatedTag {
  id: string;
  short_id: string;
  title: string;
  content: Array<Record<string, unknown>>;
  /** The uploaded image that stands in for FILE_ID in image blocks. */
  imageFileId?: string;
}

/** Placeholder for an image block's file: replaced by a real image file of the tag. */
const FILE_ID = 'file_01hzx3k4m5n6p7q8r9s0t1v2w3';

/**
 * Creates a tag. Image blocks need an image file of the tag, which a new tag cannot have: the
 * tag is created first, an image uploaded, then the content (FILE_ID → the file) set with PUT.
 */
async function createTag(t: TestApp, key: string, body: Record<string, unknown>): Promise<CreatedTag> {
  const content = Array.isArray(body.content) ? (body.content as Array<Record<string, unknown>>) : undefined;
  const withImages = content?.some((block) => block.type === 'image') ?? false;
  const response = await request(t, 'POST', '/v1/tags', { key, body: withImages ? { ...body, content: [] } : body });
  expect(response.status, response.text).toBe(201);
  if (!withImages) return response.body.data as CreatedTag;
  const tag = response.body.data as CreatedTag;
  const uploaded = await upload(t, key, tag.id, 'picture.png', await image('png', 8, 8));
  expect(uploaded.status, uploaded.text).toBe(201);
  const imageFileId = uploaded.body.data.id as string;
  const blocks = content!.map((block) => (block.file_id === FILE_ID ? { ...block, file_id: imageFileId } : block));
  const updated = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key, body: { content: blocks } });
  expect(updated.status, updated.text).toBe(200);
  return { ...(updated.body.data as CreatedTag), imageFileId };
}

/** A page fetched without any key, as a visitor would. */
function page(t: TestApp, path: string, method = 'GET'): Promise<ApiResponse> {
  return request(t, method, path);
}

function expectPage(response: ApiResponse): string {
  expect(response.status, response.text.slice(0, 500)).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  return response.text;
}

function expectNotFoundPage(response: ApiResponse): string {
  expect(response.status, response.text.slice(0, 500)).toBe(404);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.text).toMatch(/^<!doctype html>/i);
  expect(response.text).toContain('<title>Page not found</title>');
  expect(response.text).toMatch(/<h1>Page not found<\/h1>/);
  expect(response.text).toContain('<link rel="stylesheet" href="/assets/page.css">');
  expectPageSecurityHeaders(response);
  return response.text;
}

function expectPageSecurityHeaders(response: ApiResponse): void {
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  // Scripts only from the page's own origin (the view beacon), never inline or from elsewhere.
  expect(/script-src ([^;]*)/.exec(csp)?.[1]).toBe("'self'");
  expect(/connect-src ([^;]*)/.exec(csp)?.[1]).toBe("'self'");
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('cache-control')).toBe('no-store');
}

/** The inner HTML of the first element matching `open` (an opening-tag regex), up to `</tag>`. */
function between(html: string, open: RegExp, tag: string): string {
  const match = open.exec(html);
  expect(match, `no ${open} in page`).not.toBeNull();
  const start = match!.index + match![0].length;
  const end = html.indexOf(`</${tag}>`, start);
  expect(end).toBeGreaterThan(start - 1);
  return html.slice(start, end);
}

const DANGEROUS = ['<script', 'onerror', 'javascript:', '<iframe', '<style'];

function expectNoDangerousMarkup(html: string): void {
  const lower = html.toLowerCase();
  for (const needle of DANGEROUS) expect(lower, `page contains ${needle}`).not.toContain(needle);
}

describe('public tag pages', () => {
  const t = useApp();
  const owner = useAccount(t);

  describe('rendering', () => {
    let tag: CreatedTag;

    beforeAll(async () => {
      tag = await createTag(t, owner.key, {
        title: 'Fish & Chips <Special> "menu"',
        content: [
          { type: 'text', content: 'Plain words here' },
          { type: 'text', content: 'Bold words', format: { bold: true } },
          { type: 'text', content: 'Italic words', format: { italic: true } },
          { type: 'text', content: 'Both words', format: { bold: true, italic: true } },
          { type: 'heading', content: 'Heading one', level: 1 },
          { type: 'heading', content: 'Heading two', level: 2 },
          { type: 'heading', content: 'Heading three', level: 3 },
          { type: 'heading', content: 'Heading four', level: 4 },
          { type: 'heading', content: 'Heading five', level: 5 },
          { type: 'heading', content: 'Heading six', level: 6 },
          { type: 'callout', content: 'Mind the step', style: 'warning' },
          { type: 'callout', content: 'Just so you know' },
          { type: 'html', content: '<p>Some <strong>kept</strong> markup</p>' },
          { type: 'link', url: 'https://example.com/docs?a=1&b=2', label: 'Read the docs' },
          { type: 'divider' },
          { type: 'image', file_id: FILE_ID, alt: 'A plate of fish & chips' },
          { type: 'text', content: 'The end' },
        ],
      });
    });

    it('serves the page at /t/{short_id} as an HTML document with the escaped title', async () => {
      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expect(html).toMatch(/^<!doctype html>/i);
      // A tag created without a theme is in the default one.
      expect(html).toContain('<html lang="en" class="theme-default">');
      expect(html).toContain('<meta charset="utf-8">');
      expect(html).toMatch(/<meta name="viewport" content="width=device-width, initial-scale=1">/);
      expect(html).toContain('<link rel="stylesheet" href="/assets/page.css">');
      expect(html).toContain('<title>Fish &amp; Chips &lt;Special&gt; &quot;menu&quot;</title>');
      expect(html).toContain('<h1>Fish &amp; Chips &lt;Special&gt; &quot;menu&quot;</h1>');
      expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
      expect(html).not.toContain('<Special>');
    });

    it('serves the same page at /s/{short_id} (the QR address)', async () => {
      const direct = expectPage(await page(t, `/t/${tag.short_id}`));
      const scanned = expectPage(await page(t, `/s/${tag.short_id}`));
      expect(scanned).toBe(direct);
    });

    it('ignores a query string (campaign parameters on a shared link)', async () => {
      const html = expectPage(await page(t, `/t/${tag.short_id}?utm_source=newsletter&ref=x`));
      expect(html).toContain('<h1>Fish &amp; Chips');
    });

    it('renders text blocks as paragraphs, bold as <strong> and italic as <em>', async () => {
      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expect(html).toContain('<p>Plain words here</p>');
      expect(html).toMatch(/<p>\s*<strong>Bold words<\/strong>\s*<\/p>/);
      expect(html).toMatch(/<p>\s*<em>Italic words<\/em>\s*<\/p>/);
      expect(html).toMatch(/<p>\s*(<strong><em>Both words<\/em><\/strong>|<em><strong>Both words<\/strong><\/em>)\s*<\/p>/);
      expect(html).not.toMatch(/<(strong|em)>Plain words here/);
    });

    it('renders heading level n as h(n+1), capped at h6, below the single h1', async () => {
      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expect(html).toContain('<h2>Heading one</h2>');
      expect(html).toContain('<h3>Heading two</h3>');
      expect(html).toContain('<h4>Heading three</h4>');
      expect(html).toContain('<h5>Heading four</h5>');
      expect(html).toContain('<h6>Heading five</h6>');
      expect(html).toContain('<h6>Heading six</h6>');
      expect(html).not.toMatch(/<h7/);
    });

    it('renders callouts with their style class (default info)', async () => {
      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expect(html).toMatch(/<aside class="callout callout-warning"[^>]*>\s*<p>Mind the step<\/p>\s*<\/aside>/);
      expect(html).toMatch(/<aside class="callout callout-info"[^>]*>\s*<p>Just so you know<\/p>\s*<\/aside>/);
    });

    it('renders html blocks, links, dividers and images', async () => {
      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expect(html).toContain('<p>Some <strong>kept</strong> markup</p>');

      const link = /<a ([^>]*)>Read the docs<\/a>/.exec(html);
      expect(link, 'link block').not.toBeNull();
      // Through the counted redirect (test/analytics/link-clicks.test.ts follows it).
      const linkBlock = tag.content.find((block) => block.type === 'link')!;
      expect(link![1]).toContain(`href="http://tagsvc.test/t/${tag.short_id}/l/${linkBlock.id as string}"`);
      expect(link![1]).toMatch(/rel="[^"]*\bnoopener\b[^"]*"/);

      expect(html.match(/<hr\s*\/?>/g)).toHaveLength(1);

      const img = /<img ([^>]*)>/.exec(html);
      expect(img, 'image block').not.toBeNull();
      expect(img![1]).toContain('alt="A plate of fish &amp; chips"');
      expect(img![1]).toMatch(/src="[^"]+"/);
      expect(img![1]).toContain(`src="/t/${tag.short_id}/files/${tag.imageFileId}"`);
    });

    it('renders the blocks in their order, after the title', async () => {
      // The body only: the head repeats the first text block as the link preview's description.
      const html = expectPage(await page(t, `/t/${tag.short_id}`)).split('<body>')[1]!;
      const markers = [
        '<h1>',
        'Plain words here',
        'Bold words',
        'Italic words',
        'Both words',
        'Heading one',
        'Heading six',
        'Mind the step',
        'Just so you know',
        '<strong>kept</strong>',
        'Read the docs',
        '<hr',
        '<img',
        'The end',
      ];
      const positions = markers.map((marker) => html.indexOf(marker));
      expect(
        positions.every((p) => p >= 0),
        JSON.stringify(positions),
      ).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    });

    it('renders a tag without blocks', async () => {
      const empty = await createTag(t, owner.key, { title: 'Nothing here yet' });
      const html = expectPage(await page(t, `/t/${empty.short_id}`));
      expect(html).toContain('<h1>Nothing here yet</h1>');
    });

    it('answers with a strict CSP, nosniff and no-store', async () => {
      const response = await page(t, `/t/${tag.short_id}`);
      expectPage(response);
      expectPageSecurityHeaders(response);
      expectPageSecurityHeaders(await page(t, `/s/${tag.short_id}`));
    });

    it('serves the stylesheet at /assets/page.css as text/css', async () => {
      const response = await page(t, '/assets/page.css');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/css(;|$)/);
      expect(response.text).toContain('.callout-warning');
      expect(response.text).toContain('.not-found');
    });

    it('answers HEAD /t/{short_id} with 200 and no body', async () => {
      const response = await page(t, `/t/${tag.short_id}`, 'HEAD');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.raw.length).toBe(0);
      expect((await page(t, '/t/Zz9Zz9Zz', 'HEAD')).status).toBe(404);
    });
  });

  describe('cross-site scripting', () => {
    const EVIL_HTML = [
      '<p>Before <strong>kept</strong></p>',
      '<script>alert(1)</script>',
      '<img src=x onerror="alert(1)">',
      '<a href="javascript:alert(1)">x</a>',
      '<a href="JaVaScRiPt:alert(2)">y</a>',
      '<a href="&#106;avascript:alert(3)">z</a>',
      '<iframe src="https://evil.example"></iframe>',
      '<style>body{display:none}</style>',
      '<p style="color:red" onclick="alert(4)">styled</p>',
      '<svg onload="alert(5)"></svg>',
      '<form action="https://evil.example"><input name="q"></form>',
      '<a href="https://example.com">safe link</a>',
    ].join('');

    function expectSanitized(html: string): void {
      expectNoDangerousMarkup(html);
      const lower = html.toLowerCase();
      for (const needle of ['onclick', 'onload', 'alert(', '<svg', '<form', '<input', 'style="']) {
        expect(lower, `contains ${needle}`).not.toContain(needle);
      }
      expect(html).toContain('<strong>kept</strong>');
      expect(html).toMatch(/<a href="https:\/\/example\.com"[^>]*>safe link<\/a>/);
    }

    it('escapes a script in the title and in text blocks', async () => {
      const tag = await createTag(t, owner.key, {
        title: '<script>alert(1)</script>',
        content: [
          { type: 'text', content: '<script>alert(1)</script>' },
          { type: 'heading', content: '<img src=x onerror=alert(1)>', level: 2 },
          { type: 'callout', content: '</aside><script>alert(1)</script>', style: 'error' },
          { type: 'link', url: 'https://example.com/"><script>alert(1)</script>', label: '<b>label</b>' },
          { type: 'image', file_id: FILE_ID, alt: '"><script>alert(1)</script>' },
        ],
      });
      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expect(html.toLowerCase()).not.toContain('<script');
      expect(html).not.toMatch(/<img src=x/);
      expect(html).not.toContain('<b>label</b>');
      expect(html).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>');
      expect(html).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
      expect(html).toContain('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
      expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expect(html).toContain('&lt;b&gt;label&lt;/b&gt;');
      // Exactly one img element (the image block), its alt escaped inside the attribute.
      expect(html.match(/<img[\s>]/g)).toHaveLength(1);
      expect(html).toContain('alt="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    });

    it('sanitizes an HTML string given as content (the alternative shape), stored and rendered', async () => {
      const tag = await createTag(t, owner.key, { title: 'HTML string', content: EVIL_HTML, readPermission: 'public' });
      expect(tag.content).toHaveLength(1);
      expect(tag.content[0]!.type).toBe('html');

      const stored = await request(t, 'GET', `/v1/tags/${tag.id}`, { key: owner.key });
      expect(stored.status).toBe(200);
      expect(stored.body.data.content).toHaveLength(1);
      expect(stored.body.data.content[0].type).toBe('html');
      expect(stored.body.data.content[0].id).toMatch(/^blk_/);
      expectSanitized(stored.body.data.content[0].content as string);

      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expectSanitized(html);
      expectSanitized(between(html, /<div class="html-block">/, 'div'));
    });

    it('sanitizes an html block given in a block list, stored and rendered', async () => {
      const tag = await createTag(t, owner.key, {
        title: 'HTML block',
        content: [
          { type: 'text', content: 'intro' },
          { type: 'html', content: EVIL_HTML },
        ],
      });
      const stored = await request(t, 'GET', `/v1/tags/${tag.short_id}`, { key: owner.key });
      expect(stored.status).toBe(200);
      expect(stored.body.data.content[1].type).toBe('html');
      expectSanitized(stored.body.data.content[1].content as string);
      expectSanitized(expectPage(await page(t, `/s/${tag.short_id}`)));
    });

    it('sanitizes HTML sent with PUT', async () => {
      const tag = await createTag(t, owner.key, { title: 'Clean at first', content: '<p>fine</p>' });
      const updated = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: owner.key, body: { content: EVIL_HTML } });
      expect(updated.status, updated.text).toBe(200);
      expectSanitized(updated.body.data.content[0].content as string);
      expectSanitized(expectPage(await page(t, `/t/${tag.short_id}`)));
    });

    it('sanitizes again on render, so rows stored under older rules cannot run script', async () => {
      const tag = await createTag(t, owner.key, { title: 'Legacy row', content: '<p>fine</p>' });
      const legacy = [{ id: tag.content[0]!.id, type: 'html', content: EVIL_HTML }];
      await t.database.db
        .updateTable('tags')
        .set({ content: JSON.stringify(legacy) })
        .where('id', '=', tag.id)
        .execute();
      expectSanitized(expectPage(await page(t, `/t/${tag.short_id}`)));
    });
  });

  describe('visibility', () => {
    it('answers 404 with the styled page for a private tag, in either shape', async () => {
      const nested = await createTag(t, owner.key, { title: 'Secret nested', permissions: { read: 'private' } });
      const alias = await createTag(t, owner.key, { title: 'Secret alias', readPermission: 'private' });
      for (const tag of [nested, alias]) {
        for (const prefix of ['/t/', '/s/']) {
          const html = expectNotFoundPage(await page(t, `${prefix}${tag.short_id}`));
          expect(html).not.toContain('Secret');
        }
      }
      // A key does not make the public page visible: it is not the dashboard session.
      const withKey = await request(t, 'GET', `/t/${nested.short_id}`, { key: owner.key });
      expect(withKey.status).toBe(404);
    });

    it('answers 404 for an organization tag to the public, 200 for a public one of the same organization', async () => {
      const orgOwner = await createAccount(t);
      const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme', ownerEmail: orgOwner.email, plan: 'pro' });
      const { key } = await createKey(t, orgOwner.email, { organizationId: org.id });
      const internal = await createTag(t, key, { title: 'Org only', permissions: { read: 'organization' } });
      const shared = await createTag(t, key, { title: 'Org public' });
      expect(internal.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
      const html = expectNotFoundPage(await page(t, `/t/${internal.short_id}`));
      expect(html).not.toContain('Org only');
      expectNotFoundPage(await page(t, `/s/${internal.short_id}`));
      expect(expectPage(await page(t, `/t/${shared.short_id}`))).toContain('<h1>Org public</h1>');
    });

    it.each(['Zz9Zz9Zz', 'abc', 'toolongid99', 'abc-defg', 'abcdefg%21'])('answers 404 HTML for short id %s', async (shortId) => {
      expectNotFoundPage(await page(t, `/t/${shortId}`));
      expectNotFoundPage(await page(t, `/s/${shortId}`));
    });

    it('does not serve a page by the long tag id', async () => {
      const tag = await createTag(t, owner.key, { title: 'Long id' });
      expectNotFoundPage(await page(t, `/t/${tag.id}`));
    });
  });

  describe('freshness', () => {
    it('shows the new title and content after PUT, at both addresses', async () => {
      const tag = await createTag(t, owner.key, { title: 'Old title', content: [{ type: 'text', content: 'Old body' }] });
      // Render both addresses first so a cached rendering exists.
      expect(expectPage(await page(t, `/t/${tag.short_id}`))).toContain('Old body');
      expect(expectPage(await page(t, `/s/${tag.short_id}`))).toContain('Old body');

      const put = await request(t, 'PUT', `/v1/tags/${tag.id}`, {
        key: owner.key,
        body: { title: 'New title', content: [{ type: 'callout', content: 'New body', style: 'success' }] },
      });
      expect(put.status, put.text).toBe(200);
      for (const prefix of ['/t/', '/s/']) {
        const html = expectPage(await page(t, `${prefix}${tag.short_id}`));
        expect(html).toContain('<title>New title</title>');
        expect(html).toContain('<h1>New title</h1>');
        expect(html).toMatch(/class="callout callout-success"[^>]*>\s*<p>New body<\/p>/);
        expect(html).not.toContain('Old title');
        expect(html).not.toContain('Old body');
      }

      // A title-only change keeps the content and shows the new title.
      const retitle = await request(t, 'PUT', `/v1/tags/${tag.short_id}`, { key: owner.key, body: { title: 'Newer title' } });
      expect(retitle.status, retitle.text).toBe(200);
      const html = expectPage(await page(t, `/t/${tag.short_id}`));
      expect(html).toContain('<h1>Newer title</h1>');
      expect(html).toContain('New body');
    });

    it('hides the page once the tag becomes private, and shows it again when public', async () => {
      const tag = await createTag(t, owner.key, { title: 'Flip', content: [{ type: 'text', content: 'visible' }] });
      expectPage(await page(t, `/t/${tag.short_id}`));
      const hide = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: owner.key, body: { permissions: { read: 'private' } } });
      expect(hide.status, hide.text).toBe(200);
      expectNotFoundPage(await page(t, `/t/${tag.short_id}`));
      const show = await request(t, 'PUT', `/v1/tags/${tag.id}`, { key: owner.key, body: { readPermission: 'public' } });
      expect(show.status, show.text).toBe(200);
      expect(expectPage(await page(t, `/t/${tag.short_id}`))).toContain('<p>visible</p>');
    });

    it('answers 404 at both addresses after DELETE', async () => {
      const tag = await createTag(t, owner.key, { title: 'Short lived' });
      expectPage(await page(t, `/t/${tag.short_id}`));
      expectPage(await page(t, `/s/${tag.short_id}`));
      const deleted = await request(t, 'DELETE', `/v1/tags/${tag.id}`, { key: owner.key });
      expect(deleted.status).toBe(200);
      expect(expectNotFoundPage(await page(t, `/t/${tag.short_id}`))).not.toContain('Short lived');
      expectNotFoundPage(await page(t, `/s/${tag.short_id}`));
      expect((await page(t, `/t/${tag.short_id}`, 'HEAD')).status).toBe(404);
    });
  });
});
