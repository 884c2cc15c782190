import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Type } from 'typebox';
import type { ServiceContext } from '../../context.js';
import { SHORT_ID_PATTERN } from '../../lib/ids.js';
import { andThen, handled, type MaybePromise } from '../../lib/maybe-promise.js';
import type { Tracker } from '../analytics/index.js';
import { mayReadTagPage } from '../accounts/index.js';
import { findTag, type Block, type TagRow } from '../tags/index.js';
import { PAGE_CSS } from './page.css.js';
import { BEACON_JS } from './beacon.js.js';
import { beaconScript, NOT_FOUND_PAGE, renderTagPage, splitAtBeacon, withoutBeacon } from './render.js';

/**
 * No script, no inline style, nothing from other origins but images: user content cannot run
 * code here even if a sanitizer rule were missed.
 */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SHORT_ID = new RegExp(SHORT_ID_PATTERN);

/** The headers of every page; a page shown to one signed-in viewer must never be kept by a shared cache. */
function pageHeaders(cacheControl: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    // Every view must reach the server to be counted.
    'cache-control': cacheControl,
  };
}
const PUBLIC_PAGE = pageHeaders('no-store');
const PRIVATE_PAGE = pageHeaders('private, no-store');
const NOT_FOUND_BODY = Buffer.from(NOT_FOUND_PAGE);

/**
 * A tag version's page, rendered once: the body a visit that is not counted gets (bots, HEAD),
 * and the halves a counted view's beacon script goes between.
 */
interface RenderedPage {
  uncounted: Buffer;
  beforeBeacon: string;
  afterBeacon: string;
}

/**
 * The public page of each tag: /t/{short_id} (direct or referred visits) and /s/{short_id}
 * (the address in the QR code). A private tag's page shows only to its owner, an organization
 * tag's only to the organization's members, signed in to the dashboard; everyone else gets the
 * very 404 of a tag that does not exist.
 */
export function pageRoutes(ctx: ServiceContext, tracker: Tracker): FastifyPluginAsyncTypebox {
  // Rendered pages keyed by tag id and version: an update bumps the version, so stale pages are never served.
  const rendered = new LRUCache<string, RenderedPage>({
    max: 5000,
    maxSize: 128 * 1024 * 1024,
    sizeCalculation: (page) => page.uncounted.length * 3,
  });

  function renderedPage(tag: TagRow): RenderedPage {
    const key = `${tag.id}:${tag.version}`;
    let page = rendered.get(key);
    if (!page) {
      const html = renderTagPage(
        { title: tag.title, blocks: JSON.parse(tag.content) as Block[] },
        (fileId) => `/t/${tag.short_id}/files/${fileId}`,
      );
      const [beforeBeacon, afterBeacon] = splitAtBeacon(html);
      page = { uncounted: Buffer.from(withoutBeacon(html)), beforeBeacon, afterBeacon };
      rendered.set(key, page);
    }
    return page;
  }

  const notFound = (reply: FastifyReply) => reply.code(404).headers(PUBLIC_PAGE).send(NOT_FOUND_BODY);

  /**
   * A tag's page, its view counted. Not async: a public tag found in the cache, for a visit that
   * is not counted, is answered without a trip through the microtask queue.
   */
  function page(request: FastifyRequest, reply: FastifyReply, shortId: string, scan: boolean): MaybePromise<FastifyReply> {
    if (!SHORT_ID.test(shortId)) return notFound(reply);
    return andThen(findTag(ctx, shortId), (tag) => {
      if (!tag) return notFound(reply);
      if (tag.read_permission === 'public') return show(request, reply, tag, scan);
      return mayReadTagPage(ctx, request.headers.cookie, tag).then((may) => (may ? show(request, reply, tag, scan) : notFound(reply)));
    });
  }

  function show(request: FastifyRequest, reply: FastifyReply, tag: TagRow, scan: boolean): MaybePromise<FastifyReply> {
    const rendered = renderedPage(tag);
    const headers = tag.read_permission === 'public' ? PUBLIC_PAGE : PRIVATE_PAGE;
    if (!tracker.counts(request)) return reply.code(200).headers(headers).send(rendered.uncounted);
    return tracker.recordView(request, reply, tag, scan).then((token) =>
      reply
        .code(200)
        .headers(headers)
        .send(rendered.beforeBeacon + beaconScript(token) + rendered.afterBeacon),
    );
  }

  return async (app) => {
    const schema = { params: Type.Object({ shortId: Type.String() }), hide: true };
    app.get('/t/:shortId', { schema }, (request, reply) => handled(page(request, reply, request.params.shortId, false)));
    app.get('/s/:shortId', { schema }, (request, reply) => handled(page(request, reply, request.params.shortId, true)));

    // navigator.sendBeacon posts text/plain; only these routes accept it.
    app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));
    app.post(
      '/v/:token/beacon',
      { schema: { params: Type.Object({ token: Type.String({ maxLength: 128 }) }), hide: true }, bodyLimit: 1024 },
      async (request, reply) => {
        const seconds = durationFrom(request.body);
        if (seconds !== undefined) await tracker.beacon(request.params.token, seconds);
        // The same answer either way: a beacon cannot probe which views exist.
        return reply.code(204).send();
      },
    );

    app.get('/assets/page.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=86400').send(PAGE_CSS),
    );
    app.get('/assets/beacon.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400').send(BEACON_JS),
    );
  };
}

function durationFrom(body: unknown): number | undefined {
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const seconds = (parsed as { duration_seconds?: unknown } | null)?.duration_seconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : undefined;
}
