import { beforeAll, describe, expect, it, vi } from 'vitest';
import sharp from 'sharp';
import { PUBLIC_BASE_URL, request, type ApiResponse, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, upload } from '../files/helpers.js';
import { image, pdf, svg } from '../files/samples.js';
import { UA } from '../analytics/support.js';
import { rollUpViews } from '../../src/features/analytics/index.js';

/**
 * What makes a public page worth sharing: link previews (meta, Open Graph, Twitter cards), the
 * favicon, the tag's files listed with public download addresses, and a public QR code.
 */

interface Tag {
  id: string;
  short_id: string;
}

const html = (t: TestApp, path: string) => request(t, 'GET', path).then((r) => (expect(r.status, r.text.slice(0, 300)).toBe(200), r.text));

/** The content of `<meta {attribute}="{key}" content="…">`, undefined when the page has none. */
function metaContent(page: string, attribute: 'name' | 'property', key: string): string | undefined {
  const matches = [...page.matchAll(new RegExp(`<meta ${attribute}="${key.replace(/[:.]/g, '\\$&')}" content="([^"]*)">`, 'g'))];
  expect(matches.length, `${key} at most once`).toBeLessThanOrEqual(1);
  return matches[0]?.[1];
}

async function uploaded(t: TestApp, key: string, tagId: string, name: string, content: Buffer): Promise<string> {
  const response = await upload(t, key, tagId, name, content);
  expect(response.status, response.text).toBe(201);
  return response.body.data.id as string;
}

async function put(t: TestApp, key: string, tagId: string, body: Record<string, unknown>): Promise<void> {
  const response = await request(t, 'PUT', `/v1/tags/${tagId}`, { key, body });
  expect(response.status, response.text).toBe(200);
}

/** The tag's stored views, once the inbox is ingested (as every reader of views does first). */
async function viewCount(t: TestApp, tagId: string): Promise<number> {
  await rollUpViews(t.database.db);
  const rows = await t.database.db.selectFrom('views').select('id').where('tag_id', '=', tagId).execute();
  return rows.length;
}

describe('sharing a public page', () => {
  const t = useApp();
  const owner = useAccount(t);

  describe('link previews', () => {
    it('describes the page with its title, first text block, address and preview image, not the page’s own image', async () => {
      const tag: Tag = await createTag(t, owner.key, { title: 'Café "Lune" & Co' });
      const photo = await uploaded(t, owner.key, tag.id, 'front.png', await image('png', 40, 30));
      const long = `Fresh bread\n\nevery   morning. ${'Sourdough, rye and brioche baked before dawn. '.repeat(6)}`;
      await put(t, owner.key, tag.id, {
        content: [
          { type: 'heading', content: 'Welcome', level: 1 },
          { type: 'text', content: long },
          { type: 'text', content: 'Second text' },
          { type: 'image', file_id: photo, alt: 'Our shop <front>' },
        ],
      });
      const page = await html(t, `/t/${tag.short_id}`);
      const head = page.split('</head>')[0]!;

      const description = metaContent(head, 'name', 'description')!;
      expect(description.startsWith('Fresh bread every morning. Sourdough, rye')).toBe(true);
      expect(description.length).toBeLessThanOrEqual(160);
      expect(description.length).toBeGreaterThan(140);
      expect(description.endsWith('…')).toBe(true);
      expect(description).not.toMatch(/\s{2}|\n/);
      expect(metaContent(head, 'property', 'og:description')).toBe(description);
      expect(metaContent(head, 'name', 'twitter:description')).toBe(description);

      expect(metaContent(head, 'property', 'og:title')).toBe('Café &quot;Lune&quot; &amp; Co');
      expect(metaContent(head, 'name', 'twitter:title')).toBe('Café &quot;Lune&quot; &amp; Co');
      expect(metaContent(head, 'property', 'og:type')).toBe('website');
      expect(metaContent(head, 'property', 'og:url')).toBe(`${PUBLIC_BASE_URL}/t/${tag.short_id}`);
      expect(head).toContain(`<link rel="canonical" href="${PUBLIC_BASE_URL}/t/${tag.short_id}">`);
      // Every page's preview image is the one drawn from its title and theme (og-image.test.ts).
      const imageUrl = `${PUBLIC_BASE_URL}/t/${tag.short_id}/og.png`;
      expect(metaContent(head, 'property', 'og:image')).toBe(imageUrl);
      expect(metaContent(head, 'property', 'og:image:alt')).toBe('Café &quot;Lune&quot; &amp; Co');
      expect(metaContent(head, 'name', 'twitter:image')).toBe(imageUrl);
      expect(metaContent(head, 'name', 'twitter:card')).toBe('summary_large_image');
      expect(head).not.toContain(photo);

      // The preview's image is served to anyone, as an image.
      const served = await request(t, 'GET', new URL(imageUrl).pathname);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
    });

    it('keeps a short text whole; the preview image is og.png whatever files the tag has', async () => {
      const tag: Tag = await createTag(t, owner.key, {
        title: 'Flyer',
        content: [{ type: 'text', content: '  Spring fair, Saturday.  ' }],
      });
      await uploaded(t, owner.key, tag.id, 'terms.pdf', pdf());
      await uploaded(t, owner.key, tag.id, 'logo.svg', svg());
      const poster = await uploaded(t, owner.key, tag.id, 'poster.jpg', await image('jpeg', 30, 30));
      const head = (await html(t, `/t/${tag.short_id}`)).split('</head>')[0]!;
      expect(metaContent(head, 'name', 'description')).toBe('Spring fair, Saturday.');
      expect(metaContent(head, 'property', 'og:image')).toBe(`${PUBLIC_BASE_URL}/t/${tag.short_id}/og.png`);
      expect(head).not.toContain(poster);
    });

    it('leaves out the description a page does not have, never the preview image', async () => {
      const tag: Tag = await createTag(t, owner.key, { title: 'Just a title', content: [{ type: 'heading', content: 'Hi', level: 1 }] });
      const head = (await html(t, `/t/${tag.short_id}`)).split('</head>')[0]!;
      expect(metaContent(head, 'property', 'og:title')).toBe('Just a title');
      expect(metaContent(head, 'name', 'description')).toBeUndefined();
      expect(metaContent(head, 'property', 'og:description')).toBeUndefined();
      expect(metaContent(head, 'property', 'og:image')).toBe(`${PUBLIC_BASE_URL}/t/${tag.short_id}/og.png`);
      expect(metaContent(head, 'name', 'twitter:card')).toBe('summary_large_image');
    });

    it('links a favicon that is served as SVG with a year-long, immutable cache', async () => {
      const tag: Tag = await createTag(t, owner.key, { title: 'Icon' });
      const page = await html(t, `/t/${tag.short_id}`);
      const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(page)?.[1];
      expect(href).toMatch(/^\/assets\/favicon-[0-9a-f]{12}\.svg$/);
      const notFound = await request(t, 'GET', '/t/Zz9Zz9Zz');
      expect(notFound.text).toContain(`<link rel="icon" href="${href}"`);
      const icon = await request(t, 'GET', href!);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      expect(icon.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    });
  });

  describe('link blocks', () => {
    it('are buttons: a styled link with the label, through the counted redirect, noopener', async () => {
      const tag = (await createTag(t, owner.key, {
        title: 'Links',
        content: [
          { type: 'link', url: 'https://example.com/menu?a=1&b=2', label: 'Our <menu>' },
          { type: 'link', url: 'https://example.com/book' },
        ],
      })) as Tag & { content: Array<{ id: string }> };
      const [menu, book] = tag.content.map((block) => block.id);
      const page = await html(t, `/t/${tag.short_id}`);
      const counted = (blockId: string) => `${PUBLIC_BASE_URL}/t/${tag.short_id}/l/${blockId}`;
      expect(page).toContain(`<a class="button" href="${counted(menu!)}" rel="noopener noreferrer nofollow">Our &lt;menu&gt;</a>`);
      // Without a label the address is the label.
      expect(page).toContain(`<a class="button" href="${counted(book!)}" rel="noopener noreferrer nofollow">https://example.com/book</a>`);
      const redirect = await request(t, 'GET', new URL(counted(menu!)).pathname);
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe('https://example.com/menu?a=1&b=2');
      const css = await request(t, 'GET', '/assets/page.css');
      expect(css.text).toMatch(/\.button \{[^}]*display: flex;[^}]*\}/);
    });
  });

  describe('files on the page', () => {
    let tag: Tag;
    let photo: string;
    let menu: string;
    let logo: string;

    beforeAll(async () => {
      tag = await createTag(t, owner.key, { title: 'With files' });
      photo = await uploaded(t, owner.key, tag.id, 'photo.png', await image('png', 20, 20));
      await put(t, owner.key, tag.id, { content: [{ type: 'image', file_id: photo, alt: 'Photo' }] });
      menu = await uploaded(t, owner.key, tag.id, 'Menu <2026>.pdf', pdf());
      logo = await uploaded(t, owner.key, tag.id, 'logo.svg', svg());
    });

    it('lists every file an image block does not show, oldest first, as download links with type and size', async () => {
      const page = await html(t, `/t/${tag.short_id}`);
      const section = /<section class="files"[^>]*>(.*?)<\/section>/.exec(page)?.[1];
      expect(section, 'files section').toBeDefined();
      expect(section).toContain('<h2 id="files-heading">Files</h2>');
      const links = [...section!.matchAll(/<a class="file" href="([^"]+)" download>(.*?)<\/a>/g)];
      expect(links.map((m) => m[1])).toEqual([`/t/${tag.short_id}/files/${menu}`, `/t/${tag.short_id}/files/${logo}`]);
      expect(links[0]![2]).toContain('<span class="file-type" aria-hidden="true">PDF</span>');
      expect(links[0]![2]).toContain('<span class="file-name">Menu &lt;2026&gt;.pdf</span>');
      expect(links[0]![2]).toMatch(/<span class="file-size">\d+ bytes<span class="visually-hidden">, download<\/span><\/span>/);
      expect(links[1]![2]).toContain('<span class="file-type" aria-hidden="true">SVG</span>');
      // The image block's file is on the page already.
      expect(section).not.toContain(photo);
    });

    it('changes at once when a file is attached, renamed or deleted (the page is cached per version)', async () => {
      const before = await html(t, `/t/${tag.short_id}`);
      expect(await html(t, `/t/${tag.short_id}`)).toBe(before);

      const notes = await uploaded(t, owner.key, tag.id, 'notes.txt', Buffer.from('hello\n'));
      const attached = await html(t, `/t/${tag.short_id}`);
      expect(attached).toContain(`/t/${tag.short_id}/files/${notes}`);
      expect(attached).toContain('<span class="file-name">notes.txt</span>');

      const renamed = await request(t, 'PATCH', `/v1/files/${notes}`, { key: owner.key, body: { name: 'Opening hours.txt' } });
      expect(renamed.status, renamed.text).toBe(200);
      const afterRename = await html(t, `/t/${tag.short_id}`);
      expect(afterRename).toContain('<span class="file-name">Opening hours.txt</span>');
      expect(afterRename).not.toContain('notes.txt');

      const deleted = await request(t, 'DELETE', `/v1/files/${notes}`, { key: owner.key });
      expect(deleted.status, deleted.text).toBe(200);
      const afterDelete = await html(t, `/t/${tag.short_id}`);
      expect(afterDelete).not.toContain(notes);
      expect(afterDelete.replace(/data-view="[^"]*"/, '')).toBe(before.replace(/data-view="[^"]*"/, ''));
    });

    it('a tag without files has no files section', async () => {
      const bare: Tag = await createTag(t, owner.key, { title: 'Bare' });
      expect(await html(t, `/t/${bare.short_id}`)).not.toContain('class="files"');
    });
  });

  describe('public downloads', () => {
    let tag: Tag;
    let menu: string;
    let logo: string;
    let photo: string;
    const menuBytes = pdf();

    beforeAll(async () => {
      tag = await createTag(t, owner.key, { title: 'Downloads' });
      menu = await uploaded(t, owner.key, tag.id, 'menu.pdf', menuBytes);
      logo = await uploaded(t, owner.key, tag.id, 'logo.svg', svg());
      photo = await uploaded(t, owner.key, tag.id, 'photo.webp', await image('webp', 20, 20));
    });

    const file = (id: string, headers: Record<string, string> = {}) => request(t, 'GET', `/t/${tag.short_id}/files/${id}`, { headers });

    it('serves a PDF to anyone without a key, as an attachment of its type, counted as a download', async () => {
      const response = await file(menu);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="menu\.pdf"/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toContain('sandbox');
      expect(response.headers.get('cache-control')).toBe('private, no-cache');
      expect(response.raw.equals(menuBytes)).toBe(true);
      // Counted once the response has finished, after the client has it.
      const count = async () => (await request(t, 'GET', `/v1/files/${menu}`, { key: owner.key })).body.data.download_count;
      await vi.waitFor(async () => expect(await count()).toBe(1));
    });

    it('answers ranges and If-None-Match', async () => {
      const part = await file(menu, { range: 'bytes=0-7' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 0-7/${menuBytes.length}`);
      expect(part.raw.equals(menuBytes.subarray(0, 8))).toBe(true);
      const etag = part.headers.get('etag')!;
      expect((await file(menu, { 'if-none-match': etag })).status).toBe(304);
    });

    it('never serves SVG inline; raster images are inline', async () => {
      const vector = await file(logo);
      expect(vector.status).toBe(200);
      expect(vector.headers.get('content-disposition')).toMatch(/^attachment;/);
      const raster = await file(photo);
      expect(raster.headers.get('content-type')).toBe('image/webp');
      expect(raster.headers.get('content-disposition')).toMatch(/^inline;/);
      expect(raster.headers.get('cache-control')).toBe('public, max-age=300');
    });

    it('does not count a download, an image or the QR code as a view of the page', async () => {
      // A browser's user agent: requests without one are not counted as views at all.
      const browser = { 'user-agent': UA.chromeWindows };
      expect((await request(t, 'GET', `/t/${tag.short_id}`, { headers: browser })).status).toBe(200);
      expect(await viewCount(t, tag.id)).toBe(1);
      expect((await file(menu, browser)).status).toBe(200);
      expect((await file(photo, browser)).status).toBe(200);
      expect((await request(t, 'GET', `/t/${tag.short_id}/qr.svg`, { headers: browser })).status).toBe(200);
      expect(await viewCount(t, tag.id)).toBe(1);
    });

    it('answers 404 for another tag’s file, an unknown id and a malformed one', async () => {
      const other: Tag = await createTag(t, owner.key, { title: 'Other' });
      const elsewhere = await request(t, 'GET', `/t/${other.short_id}/files/${menu}`);
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body.error.code).toBe('not_found');
      expect((await file('file_01hzx3k4m5n6p7q8r9s0t1v2w3')).status).toBe(404);
      expect((await file('../../etc/passwd')).status).toBe(404);
    });

    it('stops serving the files of a tag made private, and serves them again once public', async () => {
      expect((await file(menu)).status).toBe(200);
      await put(t, owner.key, tag.id, { permissions: { read: 'private' } });
      for (const id of [menu, photo, logo]) {
        const response = await file(id);
        expect(response.status).toBe(404);
        expect(response.text).not.toContain('%PDF');
      }
      // A private tag's page does not leak its files either.
      expect((await request(t, 'GET', `/t/${tag.short_id}`)).status).toBe(404);
      await put(t, owner.key, tag.id, { permissions: { read: 'public' } });
      expect((await file(menu)).status).toBe(200);
    });

    it('never serves the files of a tag created private', async () => {
      const secret: Tag = await createTag(t, owner.key, { title: 'Secret', permissions: { read: 'private' } });
      const id = await uploaded(t, owner.key, secret.id, 'secret.pdf', pdf());
      expect((await request(t, 'GET', `/t/${secret.short_id}/files/${id}`)).status).toBe(404);
    });
  });

  describe('public QR codes', () => {
    let tag: Tag;

    beforeAll(async () => {
      tag = await createTag(t, owner.key, { title: 'Scan me' });
    });

    const qr = (path: string, headers: Record<string, string> = {}): Promise<ApiResponse> => request(t, 'GET', path, { headers });

    it('serves SVG and PNG without a key, encoding the scan address, with an ETag and a short public cache', async () => {
      const vector = await qr(`/t/${tag.short_id}/qr.svg`);
      expect(vector.status).toBe(200);
      expect(vector.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(vector.text).toMatch(/^<svg /);
      expect(vector.headers.get('cache-control')).toBe('public, max-age=300');
      const etag = vector.headers.get('etag')!;
      expect(etag).toMatch(/^".+"$/);
      expect((await qr(`/t/${tag.short_id}/qr.svg`, { 'if-none-match': etag })).status).toBe(304);

      const raster = await qr(`/t/${tag.short_id}/qr.png?size=200&color=112233&background=FFEEDD`);
      expect(raster.status).toBe(200);
      expect(raster.headers.get('content-type')).toBe('image/png');
      const meta = await sharp(raster.raw).metadata();
      expect([meta.width, meta.height]).toEqual([200, 200]);
      const { data } = await sharp(raster.raw).raw().toBuffer({ resolveWithObject: true });
      // The corner is quiet zone: the background colour.
      expect([...data.subarray(0, 3)]).toEqual([0xff, 0xee, 0xdd]);

      // The same image as the API's, which encodes the scan address /s/{short_id}.
      const api = await request(t, 'GET', `/v1/tags/${tag.id}/qr?format=png&size=200&color=112233&background=ffeedd`, { key: owner.key });
      expect(api.raw.equals(raster.raw)).toBe(true);
    });

    it('keeps size and colours within bounds (400 naming the field)', async () => {
      for (const [query, field] of [
        ['size=4096', 'size'],
        ['size=10', 'size'],
        ['color=red', 'color'],
        ['background=%23fffff', 'background'],
      ] as const) {
        const response = await qr(`/t/${tag.short_id}/qr.png?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body.error.code).toBe('validation_error');
        expect(JSON.stringify(response.body.error), query).toContain(field);
      }
      expect((await qr(`/t/${tag.short_id}/qr.png?size=1024`)).status).toBe(200);
      // #rrggbb as the API takes it: the same image as rrggbb.
      const hashed = await qr(`/t/${tag.short_id}/qr.png?size=200&color=%23112233`);
      expect(hashed.status).toBe(200);
      expect(hashed.raw.equals((await qr(`/t/${tag.short_id}/qr.png?size=200&color=112233`)).raw)).toBe(true);
    });

    it('answers 404 for a private tag, an unknown one, and a tag made private', async () => {
      const secret: Tag = await createTag(t, owner.key, { title: 'Secret', permissions: { read: 'private' } });
      expect((await qr(`/t/${secret.short_id}/qr.svg`)).status).toBe(404);
      expect((await qr(`/t/${secret.short_id}/qr.png`)).status).toBe(404);
      expect((await qr('/t/Zz9Zz9Zz/qr.svg')).status).toBe(404);
      const later: Tag = await createTag(t, owner.key, { title: 'Later' });
      expect((await qr(`/t/${later.short_id}/qr.svg`)).status).toBe(200);
      await put(t, owner.key, later.id, { permissions: { read: 'private' } });
      expect((await qr(`/t/${later.short_id}/qr.svg`)).status).toBe(404);
    });

    it('is the tag’s public_qr_url in the API; null while the tag is not public', async () => {
      const response = await request(t, 'GET', `/v1/tags/${tag.id}`, { key: owner.key });
      expect(response.body.data.public_qr_url).toBe(`${PUBLIC_BASE_URL}/t/${tag.short_id}/qr.svg`);
      const secret = await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title: 'S', permissions: { read: 'private' } } });
      expect(secret.body.data.public_qr_url).toBeNull();
    });
  });
});
