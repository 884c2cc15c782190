import { XMLParser, XMLValidator } from 'fast-xml-parser';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createKey, expectError, PUBLIC_BASE_URL, request, type ApiResponse, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

// jsqr is CommonJS (`module.exports = jsQR`) while its types declare a default export; under
// NodeNext the default import is module.exports, i.e. the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** GET /v1/tags/{id}/qr: the image, its options, caching headers, access rules and qr.generated. */

interface CreatedTag {
  id: string;
  short_id: string;
  title: string;
  qr_url: string;
}

async function createTag(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<CreatedTag> {
  const response = await request(t, 'POST', '/v1/tags', { key, body: { title: 'QR tag', ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body.data as CreatedTag;
}

function qr(t: TestApp, key: string, id: string, query = '', headers: Record<string, string> = {}): Promise<ApiResponse> {
  return request(t, 'GET', `/v1/tags/${id}/qr${query ? `?${query}` : ''}`, { key, headers });
}

function decodePng(response: ApiResponse): PNG {
  expect(response.status, response.text.slice(0, 300)).toBe(200);
  expect(response.headers.get('content-type')).toBe('image/png');
  return PNG.sync.read(response.raw);
}

/** The text of the QR code in a PNG, or null when jsQR finds none. */
function readQr(png: PNG): string | null {
  return jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data ?? null;
}

function pixel(png: PNG, x: number, y: number): string {
  const i = (y * png.width + x) * 4;
  const hex = (n: number) => png.data[i + n]!.toString(16).padStart(2, '0');
  return `${hex(0)}${hex(1)}${hex(2)}${hex(3)}`;
}

/** Every distinct RGBA value in the image, with its pixel count. */
function palette(png: PNG): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < png.data.length; i += 4) {
    const value = png.data.readUInt32BE(i).toString(16).padStart(8, '0');
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

const scanUrl = (tag: CreatedTag) => `${PUBLIC_BASE_URL}/s/${tag.short_id}`;

describe('GET /v1/tags/{id}/qr', () => {
  const t = useApp();
  const owner = useAccount(t);
  let tag: CreatedTag;

  beforeAll(async () => {
    tag = await createTag(t, owner.key, { title: 'Scan me' });
  });

  describe('PNG', () => {
    it('defaults to a 512×512 PNG encoding the scan address {PUBLIC_BASE_URL}/s/{short_id}', async () => {
      expect(tag.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
      expect(tag.qr_url).toBe(`${PUBLIC_BASE_URL}/v1/tags/${tag.id}/qr`);
      const png = decodePng(await qr(t, owner.key, tag.id));
      expect([png.width, png.height]).toEqual([512, 512]);
      expect(readQr(png)).toBe(scanUrl(tag));
      // Default colours: black on white, nothing else.
      expect([...palette(png).keys()].sort()).toEqual(['000000ff', 'ffffffff']);
    });

    it('answers the same image for the short id in the path', async () => {
      const byLongId = await qr(t, owner.key, tag.id);
      const byShortId = await qr(t, owner.key, tag.short_id);
      const png = decodePng(byShortId);
      expect([png.width, png.height]).toEqual([512, 512]);
      expect(readQr(png)).toBe(scanUrl(tag));
      expect(byShortId.raw.equals(byLongId.raw)).toBe(true);
    });

    it('encodes each tag its own address', async () => {
      const other = await createTag(t, owner.key, { title: 'Another' });
      expect(other.short_id).not.toBe(tag.short_id);
      expect(readQr(decodePng(await qr(t, owner.key, other.id)))).toBe(scanUrl(other));
    });

    it.each([64, 300, 2048])('size=%i gives an image of exactly that many pixels a side', async (size) => {
      const png = decodePng(await qr(t, owner.key, tag.id, `size=${size}`));
      expect([png.width, png.height]).toEqual([size, size]);
      if (size >= 300) expect(readQr(png)).toBe(scanUrl(tag));
    });

    // Sizes that do not divide evenly into modules (29 modules + 8 quiet-zone modules here) must
    // still give exactly `size` pixels; the spec's size is the image size, not a hint.
    it('gives exactly `size` pixels for sizes that are not a multiple of the module count', async () => {
      const mismatches: string[] = [];
      for (const size of [78, 86, 115, 123, 156, 193, 1000]) {
        const png = decodePng(await qr(t, owner.key, tag.id, `size=${size}`));
        if (png.width !== size || png.height !== size) mismatches.push(`size=${size} → ${png.width}×${png.height}`);
      }
      expect(mismatches).toEqual([]);
    });

    it('paints only the requested foreground and background colours, both of them', async () => {
      const png = decodePng(await qr(t, owner.key, tag.id, 'color=ff0000&background=00ff00'));
      expect([png.width, png.height]).toEqual([512, 512]);
      const colours = palette(png);
      expect([...colours.keys()].sort()).toEqual(['00ff00ff', 'ff0000ff']);
      expect(colours.get('ff0000ff')).toBeGreaterThan(512 * 8);
      expect(colours.get('00ff00ff')).toBeGreaterThan(512 * 8);
      // The quiet zone is background; the top-left finder pattern starts just inside it.
      expect(pixel(png, 0, 0)).toBe('00ff00ff');
      expect(pixel(png, 511, 511)).toBe('00ff00ff');
      expect(pixel(png, 60, 60)).toBe('ff0000ff');
    });

    it('still decodes with a custom dark-on-light colour pair', async () => {
      const png = decodePng(await qr(t, owner.key, tag.id, 'color=112233&background=ffffee'));
      expect([...palette(png).keys()].sort()).toEqual(['112233ff', 'ffffeeff']);
      expect(readQr(png)).toBe(scanUrl(tag));
    });

    it('accepts #rrggbb (%23 in the query) as the same colour as rrggbb', async () => {
      const hashed = await qr(t, owner.key, tag.id, 'color=%23112233&background=%23FFFFEE');
      const bare = await qr(t, owner.key, tag.id, 'color=112233&background=ffffee');
      expect(hashed.status).toBe(200);
      expect([...palette(decodePng(hashed)).keys()].sort()).toEqual(['112233ff', 'ffffeeff']);
      expect(hashed.headers.get('etag')).toBe(bare.headers.get('etag'));
      expect(hashed.raw.equals(bare.raw)).toBe(true);
    });

    it('accepts upper-case hex and treats it as the same colour', async () => {
      const upper = await qr(t, owner.key, tag.id, 'color=AABBCC&background=FFFFEE');
      const lower = await qr(t, owner.key, tag.id, 'color=aabbcc&background=ffffee');
      expect([...palette(decodePng(upper)).keys()].sort()).toEqual(['aabbccff', 'ffffeeff']);
      expect(upper.headers.get('etag')).toBe(lower.headers.get('etag'));
      expect(upper.raw.equals(lower.raw)).toBe(true);
    });
  });

  describe('SVG', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });

    function svgColours(text: string): string[] {
      const values = [...text.matchAll(/\b(?:fill|stroke)="([^"]*)"/g)].map((m) => m[1]!.toLowerCase());
      return [...new Set(values.filter((v) => v !== 'none'))].sort();
    }

    it('format=svg answers well-formed image/svg+xml of the requested size and colours', async () => {
      const response = await qr(t, owner.key, tag.id, 'format=svg&size=300&color=ff0000&background=00ff00');
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml(;|$)/);
      expect(XMLValidator.validate(response.text)).toBe(true);
      const document = parser.parse(response.text) as Record<string, unknown>;
      const roots = Object.keys(document).filter((name) => !name.startsWith('?'));
      expect(roots).toEqual(['svg']);
      const svg = document.svg as Record<string, string>;
      expect(svg.xmlns).toBe('http://www.w3.org/2000/svg');
      expect(svg.width).toBe('300');
      expect(svg.height).toBe('300');
      expect(svgColours(response.text)).toEqual(['#00ff00', '#ff0000']);
    });

    it('defaults to 512 black on white', async () => {
      const response = await qr(t, owner.key, tag.id, 'format=svg');
      expect(response.status, response.text).toBe(200);
      expect(XMLValidator.validate(response.text)).toBe(true);
      const svg = (parser.parse(response.text) as { svg: Record<string, string> }).svg;
      expect([svg.width, svg.height]).toEqual(['512', '512']);
      expect(svgColours(response.text)).toEqual(['#000000', '#ffffff']);
    });
  });

  describe('validation', () => {
    it.each([
      ['size=63', 'size'],
      ['size=2049', 'size'],
      ['size=abc', 'size'],
      ['size=100.5', 'size'],
      ['color=fff', 'color'],
      ['color=%23fff', 'color'],
      ['color=%23%23000000', 'color'],
      ['color=000000%23', 'color'],
      ['color=zzzzzz', 'color'],
      ['color=0000000', 'color'],
      ['background=ggg000', 'background'],
      ['background=fff', 'background'],
      ['background=%23ggg000', 'background'],
      ['format=gif', 'format'],
      ['format=PNG', 'format'],
    ])('%s → 400 validation_error naming %s', async (query, field) => {
      expectError(await qr(t, owner.key, tag.id, query), 400, 'validation_error', field);
    });

    it('accepts the boundaries 64 and 2048', async () => {
      expect((await qr(t, owner.key, tag.id, 'size=64&format=svg')).status).toBe(200);
      expect((await qr(t, owner.key, tag.id, 'size=2048&format=svg')).status).toBe(200);
    });
  });

  describe('caching headers', () => {
    it('carries an ETag and Cache-Control; the same request gives the same ETag', async () => {
      const first = await qr(t, owner.key, tag.id, 'size=256');
      const second = await qr(t, owner.key, tag.id, 'size=256');
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
      expect(second.headers.get('etag')).toBe(etag);
      expect(second.raw.equals(first.raw)).toBe(true);
      expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(first.headers.get('cache-control')).not.toMatch(/no-store/);
    });

    it('answers 304 with an empty body to If-None-Match with the current ETag', async () => {
      const first = await qr(t, owner.key, tag.id, 'size=256');
      const etag = first.headers.get('etag')!;
      const again = await qr(t, owner.key, tag.id, 'size=256', { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.raw.length).toBe(0);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
    });

    it('answers 200 with the image to an If-None-Match that does not match', async () => {
      const response = await qr(t, owner.key, tag.id, 'size=256', { 'if-none-match': '"something-else"' });
      expect(response.status).toBe(200);
      expect(decodePng(response).width).toBe(256);
    });

    it('answers 304 when the current ETag is one of several in If-None-Match (RFC 9110 §13.1.2)', async () => {
      const etag = (await qr(t, owner.key, tag.id, 'size=256')).headers.get('etag')!;
      const response = await qr(t, owner.key, tag.id, 'size=256', { 'if-none-match': `"older", ${etag}` });
      expect(response.status).toBe(304);
      expect(response.raw.length).toBe(0);
    });

    it('gives a different ETag for a different colour, size or format', async () => {
      const base = (await qr(t, owner.key, tag.id, 'size=256')).headers.get('etag');
      const colour = (await qr(t, owner.key, tag.id, 'size=256&color=ff0000')).headers.get('etag');
      const background = (await qr(t, owner.key, tag.id, 'size=256&background=eeeeee')).headers.get('etag');
      const size = (await qr(t, owner.key, tag.id, 'size=257')).headers.get('etag');
      const svg = (await qr(t, owner.key, tag.id, 'size=256&format=svg')).headers.get('etag');
      expect(new Set([base, colour, background, size, svg]).size).toBe(5);
      // An old ETag no longer matches once the colour changes: the new image is sent.
      const changed = await qr(t, owner.key, tag.id, 'size=256&color=ff0000', { 'if-none-match': base! });
      expect(changed.status).toBe(200);
      expect(changed.raw.length).toBeGreaterThan(0);
    });
  });

  describe('access', () => {
    it('requires a key', async () => {
      expectError(await request(t, 'GET', `/v1/tags/${tag.id}/qr`), 401, 'unauthorized');
    });

    it('answers 403 forbidden to a key without tags:read', async () => {
      const { key } = await createKey(t, owner.email, { permissions: 'tags:write,tags:delete' });
      const response = await qr(t, key, tag.id);
      expectError(response, 403, 'forbidden');
      expect(response.body.error.message).toContain('tags:read');
    });

    it('answers with a key that has only tags:read', async () => {
      const { key } = await createKey(t, owner.email, { permissions: 'tags:read' });
      expect(decodePng(await qr(t, key, tag.id)).width).toBe(512);
    });

    it("answers 403 forbidden for another account's tag, by long and short id", async () => {
      const stranger = await createAccount(t);
      expectError(await qr(t, stranger.key, tag.id), 403, 'forbidden');
      expectError(await qr(t, stranger.key, tag.short_id), 403, 'forbidden');
    });

    it('answers 404 not_found for unknown ids', async () => {
      expectError(await qr(t, owner.key, `tag_${'0'.repeat(26)}`), 404, 'not_found');
      expectError(await qr(t, owner.key, 'tag_01hzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
      expectError(await qr(t, owner.key, 'Zz9Zz9Zz'), 404, 'not_found');
      expectError(await qr(t, owner.key, 'nope'), 404, 'not_found');
    });

    it('answers 404 to a test-environment key asking for a live tag', async () => {
      const { key } = await createKey(t, owner.email, { test: true });
      expect(key.startsWith('svc_test_')).toBe(true);
      expectError(await qr(t, key, tag.id), 404, 'not_found');
      expectError(await qr(t, key, tag.short_id), 404, 'not_found');
    });

    it('answers 404 once the tag is deleted', async () => {
      const doomed = await createTag(t, owner.key, { title: 'Doomed' });
      expect((await request(t, 'DELETE', `/v1/tags/${doomed.id}`, { key: owner.key })).status).toBe(200);
      expectError(await qr(t, owner.key, doomed.id), 404, 'not_found');
    });
  });

  describe('qr.generated', () => {
    async function qrEvents(tagId: string) {
      const rows = await t.database.db
        .selectFrom('events')
        .selectAll()
        .where('type', '=', 'qr.generated')
        .where('tag_id', '=', tagId)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ row, payload: JSON.parse(row.payload) as Record<string, unknown> }));
    }

    it('records a qr.generated event with the tag summary and the QR options', async () => {
      const fresh = await createTag(t, owner.key, { title: 'Event tag' });
      expect(await qrEvents(fresh.id)).toEqual([]);
      const at = t.clock.now();
      t.clock.freeze(at);
      const response = await qr(t, owner.key, fresh.short_id, 'format=svg&size=300&color=112233&background=FFFFEE');
      expect(response.status).toBe(200);
      const events = await qrEvents(fresh.id);
      expect(events).toHaveLength(1);
      const { row, payload } = events[0]!;
      expect(payload).toEqual({
        id: row.id,
        event: 'qr.generated',
        created_at: at.toISOString(),
        data: {
          tag: { id: fresh.id, short_id: fresh.short_id, title: 'Event tag' },
          qr: { format: 'svg', size: 300, color: '112233', background: 'ffffee' },
        },
      });
      expect(row.id).toMatch(/^evt_[0-9a-z]{26}$/);
      expect(row.environment).toBe('live');
      expect(row.owner_id).toBe(owner.userId);
      expect(row.created_at).toBe(at.toISOString());
    });

    it('records the defaults when no options are given, one event per request', async () => {
      const fresh = await createTag(t, owner.key, { title: 'Defaults' });
      await qr(t, owner.key, fresh.id);
      await qr(t, owner.key, fresh.id);
      const events = await qrEvents(fresh.id);
      expect(events).toHaveLength(2);
      expect(new Set(events.map((e) => e.payload.id)).size).toBe(2);
      for (const { payload } of events) {
        expect(payload.data).toEqual({
          tag: { id: fresh.id, short_id: fresh.short_id, title: 'Defaults' },
          qr: { format: 'png', size: 512, color: '000000', background: 'ffffff' },
        });
      }
    });

    it('puts only format, size, color and background in data.qr, whatever else the query holds', async () => {
      const fresh = await createTag(t, owner.key, { title: 'Extra query' });
      expect((await qr(t, owner.key, fresh.id, 'size=128&utm_source=newsletter&secret=x')).status).toBe(200);
      const [event] = await qrEvents(fresh.id);
      expect((event!.payload.data as { qr: unknown }).qr).toEqual({ format: 'png', size: 128, color: '000000', background: 'ffffff' });
    });

    it('records nothing for refused requests', async () => {
      const fresh = await createTag(t, owner.key, { title: 'Refused' });
      const stranger = await createAccount(t);
      const { key: noRead } = await createKey(t, owner.email, { permissions: 'tags:write' });
      expectError(await qr(t, stranger.key, fresh.id), 403, 'forbidden');
      expectError(await qr(t, noRead, fresh.id), 403, 'forbidden');
      expectError(await qr(t, owner.key, fresh.id, 'size=1'), 400, 'validation_error', 'size');
      expect(await qrEvents(fresh.id)).toEqual([]);
    });
  });
});
