import sharp from 'sharp';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { expectError, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, derivedOf, sha256, upload } from './helpers.js';
import { image, pdf, svg } from './samples.js';

describe('file downloads', () => {
  const t = useApp();
  const alice = useAccount(t);
  let tag: { id: string; short_id: string };
  let text: { id: string };
  const content = Buffer.from('0123456789abcdefghij'); // 20 bytes

  const get = (path: string, headers: Record<string, string> = {}) => request(t, 'GET', path, { key: alice.key, headers });
  const count = async (id: string) => (await get(`/v1/files/${id}`)).body.data.download_count;

  beforeAll(async () => {
    tag = await createTag(t, alice.key);
    text = (await upload(t, alice.key, tag.id, 'notes.txt', content)).body.data;
  });

  it('sends the content with its type, a safe disposition and the user-content headers', async () => {
    const response = await get(`/v1/files/${text.id}/download`);
    expect(response.status).toBe(200);
    expect(response.raw.equals(content)).toBe(true);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-length')).toBe('20');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="notes.txt"');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('names a non-ASCII file in RFC 5987 form with an ASCII fallback', async () => {
    const file = (await upload(t, alice.key, tag.id, 'plain.txt', content, { name: 'Grüße "übersicht" 📄.txt' })).body.data;
    expect(file.name).toBe('Grüße "übersicht" 📄.txt');
    const response = await get(`/v1/files/${file.id}/download`);
    const disposition = response.headers.get('content-disposition')!;
    expect(disposition).toBe(
      `attachment; filename="Gru_e _ubersicht_ _.txt"; filename*=UTF-8''${encodeURIComponent('Grüße "übersicht" 📄.txt')}`,
    );
    const encoded = /filename\*=UTF-8''(.+)$/.exec(disposition)![1]!;
    expect(decodeURIComponent(encoded)).toBe(file.name);
  });

  it('adds the type’s extension when the name would download as something else', async () => {
    const file = (await upload(t, alice.key, tag.id, 'a.txt', content, { name: 'run.sh' })).body.data;
    const response = await get(`/v1/files/${file.id}/download`);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="run.sh.txt"');
  });

  it('answers If-None-Match with 304', async () => {
    const first = await get(`/v1/files/${text.id}/download`);
    const etag = first.headers.get('etag')!;
    const again = await get(`/v1/files/${text.id}/download`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await get(`/v1/files/${text.id}/download`, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get(`/v1/files/${text.id}/download`, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it.each([
    ['bytes=0-4', 0, 4],
    ['bytes=5-', 5, 19],
    ['bytes=-3', 17, 19],
    ['bytes=10-100', 10, 19],
  ])('serves Range %s as 206', async (range, start, end) => {
    const response = await get(`/v1/files/${text.id}/download`, { range });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/20`);
    expect(response.headers.get('content-length')).toBe(String(end - start + 1));
    expect(response.raw.equals(content.subarray(start, end + 1))).toBe(true);
  });

  it('answers an unsatisfiable Range with 416 and ignores malformed ones', async () => {
    const response = await get(`/v1/files/${text.id}/download`, { range: 'bytes=20-' });
    expectError(response, 416, 'range_not_satisfiable');
    expect(response.headers.get('content-range')).toBe('bytes */20');
    expect((await get(`/v1/files/${text.id}/download`, { range: 'bytes=-0' })).status).toBe(416);
    expect((await get(`/v1/files/${text.id}/download`, { range: 'bytes=5-2' })).status).toBe(200);
    expect((await get(`/v1/files/${text.id}/download`, { range: 'items=0-1' })).status).toBe(200);
    expect((await get(`/v1/files/${text.id}/download`, { range: 'bytes=0-1,4-5' })).status).toBe(200);
  });

  it('applies Range only while If-Range names the current version', async () => {
    const etag = (await get(`/v1/files/${text.id}/download`)).headers.get('etag')!;
    expect((await get(`/v1/files/${text.id}/download`, { range: 'bytes=0-1', 'if-range': etag })).status).toBe(206);
    expect((await get(`/v1/files/${text.id}/download`, { range: 'bytes=0-1', 'if-range': '"old"' })).status).toBe(200);
  });

  it('counts completed whole downloads only', async () => {
    const file = (await upload(t, alice.key, tag.id, 'count.txt', content)).body.data;
    await get(`/v1/files/${file.id}/download`);
    await get(`/v1/files/${file.id}/download`);
    await vi.waitFor(async () => expect(await count(file.id)).toBe(2));
    const etag = (await get(`/v1/files/${file.id}/download`)).headers.get('etag')!;
    await vi.waitFor(async () => expect(await count(file.id)).toBe(3));
    await get(`/v1/files/${file.id}/download`, { range: 'bytes=0-3' });
    await get(`/v1/files/${file.id}/download`, { 'if-none-match': etag });
    await request(t, 'HEAD', `/v1/files/${file.id}/download`, { key: alice.key });
    await get(`/v1/files/${file.id}`);
    expect(await count(file.id)).toBe(3);
  });

  describe('images', () => {
    let png: { id: string };
    let jpeg: { id: string };
    let vector: { id: string };
    let document: { id: string };
    beforeAll(async () => {
      png = (await upload(t, alice.key, tag.id, 'wide.png', await image('png', 800, 400))).body.data;
      jpeg = (await upload(t, alice.key, tag.id, 'photo.jpg', await image('jpeg', 300, 600))).body.data;
      vector = (await upload(t, alice.key, tag.id, 'logo.svg', svg(100, 50))).body.data;
      document = (await upload(t, alice.key, tag.id, 'doc.pdf', pdf())).body.data;
    });

    const metadataOf = async (response: { raw: Buffer }) => sharp(response.raw).metadata();

    it.each([
      ['width=200', 200, 100, 'png'],
      ['height=100', 200, 100, 'png'],
      ['width=300&height=300', 300, 150, 'png'],
      ['width=200&format=webp', 200, 100, 'webp'],
      ['width=200&format=jpeg&quality=40', 200, 100, 'jpeg'],
      ['width=100&format=avif', 100, 50, 'heif'],
      ['format=jpeg', 800, 400, 'jpeg'],
      ['width=4000', 800, 400, 'png'],
    ])('transforms %s', async (query, width, height, format) => {
      const response = await get(`/v1/files/${png.id}/download?${query}`);
      expect(response.status, response.text).toBe(200);
      const meta = await metadataOf(response);
      expect([meta.width, meta.height, meta.format]).toEqual([width, height, format]);
      expect(response.headers.get('content-type')).toBe(
        { png: 'image/png', webp: 'image/webp', jpeg: 'image/jpeg', heif: 'image/avif' }[format],
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('names the transformed download after its new format', async () => {
      const response = await get(`/v1/files/${png.id}/download?format=webp`);
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="wide.webp"');
      // AVIF is no upload type, but a transform's output all the same.
      const avif = await get(`/v1/files/${png.id}/download?format=avif`);
      expect(avif.headers.get('content-disposition')).toBe('attachment; filename="wide.avif"');
    });

    it('lower quality gives a smaller jpeg', async () => {
      const low = await get(`/v1/files/${jpeg.id}/download?quality=5`);
      const high = await get(`/v1/files/${jpeg.id}/download?quality=100`);
      expect(low.raw.length).toBeLessThan(high.raw.length);
    });

    it('renders SVG to the requested size, sharp (drawn at that size)', async () => {
      const response = await get(`/v1/files/${vector.id}/download?width=400`);
      const meta = await metadataOf(response);
      expect([meta.width, meta.height, meta.format]).toEqual([400, 200, 'png']);
    });

    describe('SVGs of any size, at any size in range', () => {
      let tiny: { id: string };
      let huge: { id: string };
      beforeAll(async () => {
        tiny = (await upload(t, alice.key, tag.id, 'dot.svg', svg(1, 1))).body.data;
        // A viewBox alone gives the drawing's own size: 100000 px square, a decoding bomb at 72 DPI.
        const viewBoxOnly =
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100000 100000"><circle cx="50000" cy="50000" r="40000"/></svg>';
        huge = (await upload(t, alice.key, tag.id, 'plan.svg', Buffer.from(viewBoxOnly))).body.data;
      });

      // 1389 px is where a 1×1 SVG needs more than sharp's 100000 DPI (it was a 500).
      it.each([
        ['1×1', 'width=1', 1, 1],
        ['1×1', 'width=1388', 1388, 1388],
        ['1×1', 'width=1389', 1389, 1389],
        ['1×1', 'height=2500', 2500, 2500],
        ['1×1', 'width=4096', 4096, 4096],
        ['1×1', 'height=4096', 4096, 4096],
        ['1×1', 'width=4096&height=4096&format=webp', 4096, 4096],
        ['100000 px', 'width=1', 1, 1],
        ['100000 px', 'height=1&format=jpeg', 1, 1],
        ['100000 px', 'width=4096', 4096, 4096],
      ])('draws a %s SVG at %s', async (size, query, width, height) => {
        const file = size === '1×1' ? tiny : huge;
        const response = await get(`/v1/files/${file.id}/download?${query}`);
        expect(response.status, response.text).toBe(200);
        const meta = await metadataOf(response);
        expect([meta.width, meta.height]).toEqual([width, height]);
      });

      it('makes their thumbnails', async () => {
        for (const file of [tiny, huge]) {
          const response = await get(`/v1/files/${file.id}/thumbnail?width=1&height=1`);
          expect(response.status, response.text).toBe(200);
          const meta = await metadataOf(response);
          expect([meta.width, meta.height]).toEqual([1, 1]);
        }
      });
    });

    it('keeps renders in the store and serves them again with the same ETag', async () => {
      const first = await get(`/v1/files/${png.id}/download?width=123`);
      const cached = await derivedOf(t, png.id);
      expect(cached.length).toBeGreaterThan(0);
      const second = await get(`/v1/files/${png.id}/download?width=123`);
      expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(sha256(second.raw)).toBe(sha256(first.raw));
      expect((await get(`/v1/files/${png.id}/download?width=123`, { 'if-none-match': first.headers.get('etag')! })).status).toBe(304);
      expect(first.headers.get('etag')).not.toBe((await get(`/v1/files/${png.id}/download`)).headers.get('etag'));
    });

    it.each([
      ['width=0', 'width'],
      ['width=4097', 'width'],
      ['height=-1', 'height'],
      ['width=abc', 'width'],
      ['quality=0', 'quality'],
      ['quality=101', 'quality'],
      ['format=gif', 'format'],
      ['format=tiff', 'format'],
    ])('refuses %s naming %s', async (query, field) => {
      expectError(await get(`/v1/files/${png.id}/download?${query}`), 400, 'validation_error', field);
    });

    it('refuses transforms of non-images naming the parameter', async () => {
      expectError(await get(`/v1/files/${document.id}/download?width=100`), 400, 'validation_error', 'width');
      expectError(await get(`/v1/files/${document.id}/download?format=png`), 400, 'validation_error', 'format');
      expectError(await get(`/v1/files/${document.id}/thumbnail`), 400, 'validation_error', 'file_id');
    });

    it('makes 256×256 webp thumbnails by default, aspect kept', async () => {
      const response = await get(`/v1/files/${png.id}/thumbnail`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/webp');
      const meta = await metadataOf(response);
      expect([meta.width, meta.height, meta.format]).toEqual([256, 128, 'webp']);
      const tall = await metadataOf(await get(`/v1/files/${jpeg.id}/thumbnail`));
      expect([tall.width, tall.height]).toEqual([128, 256]);
      const custom = await metadataOf(await get(`/v1/files/${png.id}/thumbnail?width=64&height=64&format=png`));
      expect([custom.width, custom.height, custom.format]).toEqual([64, 32, 'png']);
      expectError(await get(`/v1/files/${png.id}/thumbnail?width=5000`), 400, 'validation_error', 'width');
      const vectorThumb = await metadataOf(await get(`/v1/files/${vector.id}/thumbnail`));
      expect([vectorThumb.width, vectorThumb.height]).toEqual([256, 128]);
    });

    it('counts transformed downloads, not thumbnails', async () => {
      const fresh = (await upload(t, alice.key, tag.id, 'fresh.png', await image('png', 50, 50))).body.data;
      await get(`/v1/files/${fresh.id}/thumbnail`);
      await get(`/v1/files/${fresh.id}/download?format=webp`);
      await vi.waitFor(async () => expect(await count(fresh.id)).toBe(1));
      await get(`/v1/files/${fresh.id}/thumbnail?width=10`);
      expect(await count(fresh.id)).toBe(1);
    });
  });
});
