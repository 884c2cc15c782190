import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { sendTagged } from '../http/conditional.js';
import { pageTheme, renderOgImage } from '../features/pages/index.js';
import { baseUrlFor, type TagRow } from '../features/tags/index.js';
import { isRefusal, refuse, type PageGate } from './gate.js';

interface OgPng {
  body: Buffer;
  contentType: string;
  etag: string;
}

/**
 * GET /t/{short_id}/og.png: the link preview image of a public page (its og:image), drawn from
 * its title and theme, for the public pages the QR code is served for (the gate's `address`
 * check): others are 404 as a missing tag, a tag's old address moves to its new one. A page
 * behind a password gets a lock instead of its title, which only its password shows.
 */
export function ogImageRoutes(ctx: ServiceContext, gate: PageGate): FastifyPluginAsyncTypebox {
  // Rendering takes tens of milliseconds; an image depends only on its tag's version (the title,
  // theme and password all take a new one) and the host, which is the process's configuration.
  const images = new LRUCache<string, OgPng>({ max: 5000, maxSize: 32 * 1024 * 1024, sizeCalculation: (image) => image.body.length });
  // A version's image being rendered: requests arriving meanwhile wait for the same one.
  const rendering = new Map<string, Promise<OgPng>>();

  function imageOf(tag: TagRow): OgPng | Promise<OgPng> {
    const key = `${tag.id}:${tag.version}`;
    const kept = images.get(key) ?? rendering.get(key);
    if (kept) return kept;
    const rendered = render(tag).then((image) => {
      images.set(key, image);
      return image;
    });
    rendering.set(key, rendered);
    const done = () => rendering.delete(key);
    rendered.then(done, done);
    return rendered;
  }

  async function render(tag: TagRow): Promise<OgPng> {
    const body = await renderOgImage({
      title: tag.title,
      theme: pageTheme(tag.theme_preset, tag.theme_accent),
      host: new URL(baseUrlFor(ctx.config, tag.environment)).host,
      locked: tag.password_hash !== null,
    });
    return { body, contentType: 'image/png', etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  }

  return async (app) => {
    app.get('/t/:shortId/og.png', { schema: { params: Type.Object({ shortId: Type.String() }), hide: true } }, async (request, reply) => {
      const admitted = await gate.admit(request, request.params.shortId, 'address');
      if (isRefusal(admitted) && admitted.kind === 'moved') return refuse(request, reply, admitted);
      // Shown to anyone, so only a public page's: a signed-in member's cookie admits no more here.
      if (isRefusal(admitted) || admitted.read_permission !== 'public') throw new ApiError('not_found', 'Not found');
      // Short, as for the QR code: a page taken down stops being served by caches soon after.
      return sendTagged(request, reply, await imageOf(admitted), 'public, max-age=300');
    });
  };
}
