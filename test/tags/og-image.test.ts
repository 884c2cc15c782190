import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PUBLIC_BASE_URL, request, type ApiResponse } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, upload } from '../files/helpers.js';
import { image } from '../files/samples.js';
import { pageTheme } from '../../src/features/pages/index.js';
import { ogImageSvg, titleLines } from '../../src/features/pages/og-image.js';

/**
 * Link preview images: every public page's og:image is its /og.png, a 1200×630 PNG of its
 * title in its theme, cached per version, conditional, and shown only for what the public may see.
 */

/** The content of `<meta {attribute}="{key}" content="…">`. */
function meta(page: string, attribute: 'name' | 'property', key: string): string | undefined {
  return new RegExp(`<meta ${attribute}="${key.replace(/[:.]/g, '\\$&')}" content="([^"]*)">`).exec(page)?.[1];
}

const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'tagsvc-og-'));

describe('the title on a preview image', () => {
  it('takes the largest size at which it fits in three lines', () => {
    expect(titleLines('Harbour Café')).toEqual({ size: 76, lines: ['Harbour Café'] });
    const title = 'Conference room B — equipment and booking for everyone on the third floor';
    const smaller = titleLines(title);
    expect(smaller.size).toBeLessThan(76);
    expect(smaller.lines).toHaveLength(3);
    expect(smaller.lines.join(' ')).toBe(title);
  });

  it('is cut after three lines with an ellipsis, and a word longer than a line is broken', () => {
    const long = titleLines('word '.repeat(60).trim());
    expect(long.lines).toHaveLength(3);
    expect(long.lines[2]!.endsWith('…')).toBe(true);
    const unbroken = titleLines('x'.repeat(255));
    expect(unbroken.lines).toHaveLength(3);
    expect(unbroken.lines.slice(0, 2).every((line) => /^x+$/.test(line))).toBe(true);
    expect(unbroken.lines[2]!.endsWith('…')).toBe(true);
  });

  it('is escaped into the SVG; a locked page’s image has no title at all', () => {
    const input = { title: '<script>&"\'', theme: pageTheme('default', null), host: 'tagsvc.test', locked: false };
    const svg = ogImageSvg(input);
    expect(svg).toContain('&lt;script&gt;&amp;&quot;&#39;');
    expect(svg).not.toContain('<script>');
    expect(ogImageSvg({ ...input, title: 'Secret plans', locked: true })).not.toContain('Secret');
  });
});

describe('og.png', () => {
  const t = useApp();
  const owner = useAccount(t);

  const og = (shortId: string, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    request(t, 'GET', `/t/${shortId}/og.png`, { headers });

  const put = async (tagId: string, body: Record<string, unknown>) => {
    const response = await request(t, 'PUT', `/v1/tags/${tagId}`, { key: owner.key, body });
    expect(response.status, response.text).toBe(200);
  };

  it('is every page’s og:image, even when the page shows an image of its own', async () => {
    const tag = await createTag(t, owner.key, { title: 'Harbour Café' });
    const photo = await upload(t, owner.key, tag.id, 'terrace.png', await image('png', 40, 30));
    expect(photo.status, photo.text).toBe(201);
    await put(tag.id, { content: [{ type: 'image', file_id: photo.body.data.id, alt: 'The terrace' }] });
    const page = (await request(t, 'GET', `/t/${tag.short_id}`)).text.split('</head>')[0]!;
    const address = `${PUBLIC_BASE_URL}/t/${tag.short_id}/og.png`;
    expect(meta(page, 'property', 'og:image')).toBe(address);
    expect(meta(page, 'name', 'twitter:image')).toBe(address);
    expect(meta(page, 'property', 'og:image:width')).toBe('1200');
    expect(meta(page, 'property', 'og:image:height')).toBe('630');
    expect(meta(page, 'property', 'og:image:type')).toBe('image/png');
    expect(meta(page, 'property', 'og:image:alt')).toBe('Harbour Café');
    expect(meta(page, 'name', 'twitter:card')).toBe('summary_large_image');
  });

  it('is a 1200×630 PNG with an ETag and a short public cache; 304 when the client holds it', async () => {
    const tag = await createTag(t, owner.key, {
      title: 'Spring fair — Saturday 10 to 16',
      theme: { preset: 'bold', accent_color: '#e11d48' },
    });
    const response = await og(tag.short_id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const metadata = await sharp(response.raw).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(['png', 1200, 630]);
    writeFileSync(join(screenshots, 'og-bold.png'), response.raw);

    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await og(tag.short_id, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
    expect((await og(tag.short_id, { 'if-none-match': '"other"' })).status).toBe(200);

    // Drawn in the theme: bold fills the image with its accent (which takes white text as it is).
    const { data } = await sharp(response.raw).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([0xe1, 0x1d, 0x48]);
  });

  it('changes with the title (a new version), and is the same image for the same version', async () => {
    const tag = await createTag(t, owner.key, { title: 'Opening hours' });
    const first = await og(tag.short_id);
    expect((await og(tag.short_id)).raw.equals(first.raw)).toBe(true);
    await put(tag.id, { title: 'Closed for the holidays' });
    const renamed = await og(tag.short_id);
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(renamed.raw.equals(first.raw)).toBe(false);
    // The old ETag no longer matches: a client holding the old image gets the new one.
    expect((await og(tag.short_id, { 'if-none-match': first.headers.get('etag')! })).status).toBe(200);
    writeFileSync(join(screenshots, 'og-default.png'), renamed.raw);
    for (const preset of ['minimal', 'dark'] as const) {
      await put(tag.id, { theme: { preset } });
      writeFileSync(join(screenshots, `og-${preset}.png`), (await og(tag.short_id)).raw);
    }
  });

  it('shows a lock and the host instead of a password-protected page’s title', async () => {
    const one = await createTag(t, owner.key, { title: 'Board minutes, March', password: 'open sesame' });
    const two = await createTag(t, owner.key, { title: 'Salaries 2026', password: 'open sesame' });
    const [a, b] = [await og(one.short_id), await og(two.short_id)];
    expect(a.status).toBe(200);
    expect(a.raw.equals(b.raw)).toBe(true);
    const open = await createTag(t, owner.key, { title: 'Board minutes, March' });
    expect((await og(open.short_id)).raw.equals(a.raw)).toBe(false);
    writeFileSync(join(screenshots, 'og-locked.png'), a.raw);
  });

  it('answers 404 for a private tag, a draft, an unknown address and a tag made private', async () => {
    const secret = await createTag(t, owner.key, { title: 'Secret', permissions: { read: 'private' } });
    expect((await og(secret.short_id)).status).toBe(404);
    const draft = await createTag(t, owner.key, { title: 'Draft', status: 'draft' });
    expect((await og(draft.short_id)).status).toBe(404);
    expect((await og('Zz9Zz9Zz')).status).toBe(404);
    const later = await createTag(t, owner.key, { title: 'Later' });
    expect((await og(later.short_id)).status).toBe(200);
    await put(later.id, { permissions: { read: 'private' } });
    const hidden = await og(later.short_id);
    expect(hidden.status).toBe(404);
    expect(hidden.headers.get('content-type')).not.toBe('image/png');
  });
});
