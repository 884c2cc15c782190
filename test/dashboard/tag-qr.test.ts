import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import sharp from 'sharp';
import { actorOfUser } from '../../src/features/accounts/index.js';
import * as tags from '../../src/features/tags/index.js';
import { eventRows } from '../webhooks/support.js';
import { PUBLIC_BASE_URL, type Account } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { get, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

// jsqr's CommonJS default export, as test/tags/qr.test.ts reads it.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** What a PNG shows: its size, the colour of its corner (background) and the text its QR code decodes to. */
function readPng(bytes: Buffer) {
  const png = PNG.sync.read(bytes);
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  const hex = (offset: number) => [...png.data.subarray(offset, offset + 3)].map((v) => v.toString(16).padStart(2, '0')).join('');
  // The finder pattern's outer ring starts right after the 4-cell quiet zone: a foreground pixel.
  const cell = png.width / (decoded ? decoded.version * 4 + 17 + 8 : 1);
  const inside = Math.floor(cell * 4 + cell / 2);
  return {
    width: png.width,
    height: png.height,
    background: hex(0),
    foreground: hex((inside * png.width + inside) * 4),
    text: decoded?.data,
  };
}

/** The QR page of one tag: preview, options, PNG and SVG downloads that decode to the scan address. */
describe('dashboard tag QR code', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');

  const newTag = (account: Account, title: string) => tags.createTag(t.services, actorOfUser({ ...account, plan: 'pro' }), { title });
  const scanAddress = (tag: { short_id: string }) => `${PUBLIC_BASE_URL}/s/${tag.short_id}`;

  it('previews as the options change and downloads PNG and SVG files with the chosen size and colours', async () => {
    const tag = await newTag(alice, 'Front door');
    const { context, page } = await newPage(holder.browser, { acceptDownloads: true });
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/${tag.id}/qr`);
    await expect(page.getByRole('link', { name: 'QR code' }).getAttribute('aria-current')).resolves.toBe('page');
    const preview = page.getByRole('img', { name: `QR code of ${scanAddress(tag)}` });
    await expect(preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).resolves.toBe(512);
    await expectAccessible(page);

    // The preview follows the options, from the same-origin image address.
    await page.getByLabel('Size (pixels)').fill('300');
    await page.getByLabel('Foreground').fill('#1a237e');
    await page.getByLabel('Background').fill('#fff8e1');
    await page.waitForFunction(() => {
      const img = document.getElementById('qr-preview-image') as HTMLImageElement;
      return img.src.includes('size=300') && img.src.includes('color=1a237e') && img.src.includes('background=fff8e1') && img.complete;
    });
    const shown = await page.evaluate(async () => {
      const img = document.getElementById('qr-preview-image') as HTMLImageElement;
      const answer = await fetch(img.src);
      return { status: answer.status, type: answer.headers.get('content-type'), size: img.naturalWidth };
    });
    expect(shown).toEqual({ status: 200, type: 'image/png', size: 300 });
    await expect(page.locator('#qr-caption').textContent()).resolves.toBe('300 × 300 px, PNG');
    await screenshots(page, 'tag-qr');

    const [png] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(png.suggestedFilename()).toBe(`tag-${tag.short_id}-qr-300.png`);
    const pngFile = readPng(readFileSync((await png.path())!));
    expect(pngFile).toEqual({ width: 300, height: 300, background: 'fff8e1', foreground: '1a237e', text: scanAddress(tag) });

    await page.getByLabel('Format').selectOption('svg');
    const [svg] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(svg.suggestedFilename()).toBe(`tag-${tag.short_id}-qr-300.svg`);
    const svgText = readFileSync((await svg.path())!, 'utf8');
    expect(svgText).toMatch(/^<svg[^>]* width="300" height="300"/);
    expect(svgText).toContain('#1a237e');
    expect(svgText).toContain('#fff8e1');
    expect(readPng(await sharp(Buffer.from(svgText)).png().toBuffer()).text).toBe(scanAddress(tag));

    // Each download is a QR generated (qr.generated, as the API's endpoint); previews are not.
    const events = (await eventRows(t, [tag.id])).filter((row) => row.type === 'qr.generated');
    expect(events.map((row) => JSON.parse(row.payload).data.qr)).toEqual([
      { format: 'png', size: 300, color: '1a237e', background: 'fff8e1' },
      { format: 'svg', size: 300, color: '1a237e', background: 'fff8e1' },
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('answers invalid options with an error on each field, and the download as an attachment', async () => {
    const tag = await newTag(alice, 'Back door');
    const jar = await signInHttp(t, alice.email);
    const invalid = await get(t, `/dashboard/tags/${tag.id}/qr/download?size=20&color=%23zzzzzz&background=fff&format=gif`, jar);
    expect(invalid.status).toBe(400);
    const error = (name: string) => new RegExp(`id="field-${name}-error">([^<]*)<`).exec(invalid.text)?.[1];
    expect(error('size')).toBe('Enter a whole number of pixels from 64 to 2048.');
    expect(error('color')).toBe('Choose a colour: 6 hexadecimal digits, like #1d1d1f.');
    expect(error('background')).toBe('Choose a colour: 6 hexadecimal digits, like #ffffff.');
    expect(error('format')).toBe('Choose PNG or SVG.');
    expect(invalid.text).not.toContain('id="qr-preview-image"');
    expect((await get(t, `/dashboard/tags/${tag.id}/qr?size=4096`, jar)).status).toBe(400);
    expect((await get(t, `/dashboard/tags/${tag.id}/qr/image?size=abc`, jar)).status).toBe(400);

    // Defaults are the API's: 512 px, black on white, PNG; the image itself is inline, the download an attachment.
    const image = await get(t, `/dashboard/tags/${tag.short_id}/qr/image`, jar);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toBeNull();
    expect(readPng(image.raw)).toEqual({ width: 512, height: 512, background: 'ffffff', foreground: '000000', text: scanAddress(tag) });
    // Colours with their '#' (what the colour inputs send) or without it, as in the API.
    for (const colours of ['color=%231a237e&background=%23fff8e1', 'color=1a237e&background=FFF8E1']) {
      const coloured = await get(t, `/dashboard/tags/${tag.id}/qr/image?size=128&${colours}`, jar);
      expect(readPng(coloured.raw), colours).toEqual({
        width: 128,
        height: 128,
        background: 'fff8e1',
        foreground: '1a237e',
        text: scanAddress(tag),
      });
    }
    const download = await get(t, `/dashboard/tags/${tag.id}/qr/download?size=128&color=%23000000&background=%23ffffff&format=png`, jar);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="tag-${tag.short_id}-qr-128.png"`);
    expect(readPng(download.raw).text).toBe(scanAddress(tag));
  });

  it("answers 404 for another user's tag, whatever the address", async () => {
    const tag = await newTag(alice, 'Private door');
    const jar = await signInHttp(t, bob.email);
    for (const path of ['qr', 'qr/image', 'qr/download']) {
      expect((await get(t, `/dashboard/tags/${tag.id}/${path}`, jar)).status).toBe(404);
      expect((await get(t, `/dashboard/tags/${tag.short_id}/${path}`, jar)).status).toBe(404);
    }
    expect((await get(t, '/dashboard/tags/tag_doesnotexist/qr', jar)).status).toBe(404);
    expect(await eventRows(t, [tag.id]).then((rows) => rows.filter((row) => row.type === 'qr.generated'))).toEqual([]);
  });
});
