import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { ApiError, DependencyUnavailable, isOutsideFault } from '../errors.js';
import { logOutsideFault } from '../http/error-handler.js';
import { SHORT_ID_PATTERN } from '../lib/ids.js';
import { andThen, handled, type MaybePromise } from '../lib/maybe-promise.js';
import type { Tracker, Visit } from '../features/analytics/index.js';
import { mayReadTagPage } from '../features/accounts/index.js';
import { sendTagged } from '../http/conditional.js';
import { pageFiles } from '../features/files/index.js';
import {
  baseUrlFor,
  findTag,
  findTagForPage,
  normalizeColor,
  publicPageUrl,
  qrImage,
  QR_MIN_SIZE,
  scanUrl,
  type Block,
  type TagRow,
} from '../features/tags/index.js';
import {
  beaconScript,
  FAVICON_PATH,
  FAVICON_SVG,
  NOT_FOUND_PAGE,
  renderTagPage,
  splitAtBeacon,
  UNAVAILABLE_PAGE,
} from '../features/pages/index.js';
import { QrQuery } from '../http/schemas/tags.js';

/** The page's only stylesheet, served from /assets/page.css so the CSP can forbid inline styles. */
const PAGE_CSS = readFileSync(new URL('page.css', import.meta.url), 'utf8');
/**
 * The page's only script, served from /assets/beacon.js (the CSP allows 'self' only): a
 * heartbeat every 15 s while the page is visible, and the time on page when it is hidden.
 */
const BEACON_JS = readFileSync(new URL('beacon.client.js', import.meta.url), 'utf8');

/**
 * No script, no inline style, nothing from other origins but images: user content cannot run
 * code here even if a sanitizer rule were missed.
 */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SHORT_ID = new RegExp(SHORT_ID_PATTERN);

/** Anyone may ask for a public QR code: its size is bounded tighter than the API's. */
export const PUBLIC_QR_MAX_SIZE = 1024;

const PublicQrQuery = Type.Object({
  size: Type.Integer({ minimum: QR_MIN_SIZE, maximum: PUBLIC_QR_MAX_SIZE, default: 512, description: 'Pixels' }),
  color: QrQuery.properties.color,
  background: QrQuery.properties.background,
});

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
const UNAVAILABLE_BODY = Buffer.from(UNAVAILABLE_PAGE);

/**
 * A tag version's page, rendered once: the body a visit that is not counted gets (bots, HEAD),
 * and the halves a counted view's beacon script goes between.
 */
interface RenderedPage {
  uncounted: Buffer;
  beforeBeacon: Buffer;
  afterBeacon: Buffer;
}

/**
 * The public page of each tag: /t/{short_id} (direct or referred visits) and /s/{short_id}
 * (the address in the QR code). A private tag's page shows only to its owner, an organization
 * tag's only to the organization's members, signed in to the dashboard; everyone else gets the
 * very 404 of a tag that does not exist.
 */
export function pageRoutes(ctx: ServiceContext, tracker: Tracker): FastifyPluginAsyncTypebox {
  // Rendered pages keyed by tag id and version. Every change of the tag, or of one of its files
  // (bumpPageVersion), takes a new version, so a stale page is never served; the files are read
  // only when a version is rendered, never per view.
  const rendered = new LRUCache<string, RenderedPage>({
    max: 5000,
    maxSize: 128 * 1024 * 1024,
    // The uncounted page and its two halves: twice its bytes.
    sizeCalculation: (page) => page.uncounted.length * 2,
  });

  const pageKey = (tag: TagRow) => `${tag.id}:${tag.version}`;

  /** The tag's current version's page: kept, or rendered (reading its files) and kept. */
  function renderedPage(tag: TagRow): MaybePromise<RenderedPage> {
    return rendered.get(pageKey(tag)) ?? renderPage(tag);
  }

  async function renderPage(tag: TagRow): Promise<RenderedPage> {
    const html = renderTagPage(
      { title: tag.title, blocks: JSON.parse(tag.content) as Block[], files: await pageFiles(ctx, tag.id) },
      {
        file: (fileId) => `/t/${tag.short_id}/files/${fileId}`,
        share: { pageUrl: publicPageUrl(ctx.config, tag), baseUrl: baseUrlFor(ctx.config, tag.environment) },
      },
    );
    const [beforeBeacon, afterBeacon] = splitAtBeacon(html);
    // Bytes, not text: a counted view's body is three copies, without encoding 8 kB anew.
    const page = {
      uncounted: Buffer.from(beforeBeacon + afterBeacon),
      beforeBeacon: Buffer.from(beforeBeacon),
      afterBeacon: Buffer.from(afterBeacon),
    };
    rendered.set(pageKey(tag), page);
    return page;
  }

  const notFound = (reply: FastifyReply) => reply.code(404).headers(PUBLIC_PAGE).send(NOT_FOUND_BODY);

  /**
   * A tag's page, its view counted. Not async: a public tag found in the cache, whose page is
   * kept, for a visit that is not counted, is answered without a trip through the microtask queue.
   */
  function page(request: FastifyRequest, reply: FastifyReply, shortId: string, scan: boolean): MaybePromise<FastifyReply> {
    if (!SHORT_ID.test(shortId)) return notFound(reply);
    const shown = andThen(findTagForPage(ctx, shortId), (tag) => {
      if (!tag) return notFound(reply);
      if (tag.read_permission === 'public') return show(request, reply, tag, scan);
      return mayReadTagPage(ctx, request.headers.cookie, tag).then((may) => (may ? show(request, reply, tag, scan) : notFound(reply)));
    });
    return shown instanceof Promise ? shown.catch((error: unknown) => unavailable(reply, error)) : shown;
  }

  /** A visitor (who may have scanned a printed code) gets a page, not the API's JSON envelope. */
  function unavailable(reply: FastifyReply, error: unknown): FastifyReply {
    if (!(error instanceof DependencyUnavailable)) throw error;
    logOutsideFault(reply.log, error);
    return reply.code(503).headers(PUBLIC_PAGE).header('retry-after', String(error.details.retryAfter)).send(UNAVAILABLE_BODY);
  }

  function show(request: FastifyRequest, reply: FastifyReply, tag: TagRow, scan: boolean): MaybePromise<FastifyReply> {
    const headers = tag.read_permission === 'public' ? PUBLIC_PAGE : PRIVATE_PAGE;
    return andThen(renderedPage(tag), (rendered) => {
      if (!tracker.counts(request.method, request.headers['user-agent'])) return reply.code(200).headers(headers).send(rendered.uncounted);
      const visit = tracker.recordView(visitOf(request), tag, scan);
      reply.header('set-cookie', visit.setCookie);
      return visit.token.then(
        (token) =>
          reply
            .code(200)
            .headers(headers)
            .send(Buffer.concat([rendered.beforeBeacon, Buffer.from(beaconScript(token)), rendered.afterBeacon])),
        (error: unknown) => {
          // The page is a read: a database that cannot take the view (its disk full, or out of
          // reach) loses the view, not the page. It goes without a beacon, whose token would
          // claim a view that was never recorded (the recorder logs the failure).
          if (!isOutsideFault(error)) throw error;
          return reply.code(200).headers(headers).send(rendered.uncounted);
        },
      );
    });
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

    // The QR code of a public page, for an <img> anywhere: no key, no event, never a view.
    for (const format of ['png', 'svg'] as const) {
      app.get(
        `/t/:shortId/qr.${format}`,
        { schema: { params: Type.Object({ shortId: Type.String() }), querystring: PublicQrQuery, hide: true } },
        async (request, reply) => {
          const { shortId } = request.params;
          const tag = SHORT_ID.test(shortId) ? await findTag(ctx, shortId) : undefined;
          if (tag?.read_permission !== 'public') throw new ApiError('not_found', 'Not found');
          const { size, color, background } = request.query;
          const image = await qrImage(scanUrl(ctx.config, tag), {
            format,
            size,
            color: normalizeColor(color),
            background: normalizeColor(background),
          });
          // Short, as for the page's images: a tag made private stops being served by caches soon after.
          return sendTagged(request, reply, image, 'public, max-age=300');
        },
      );
    }

    app.get(FAVICON_PATH, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('image/svg+xml; charset=utf-8')
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(FAVICON_SVG),
    );
    app.get('/assets/page.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=86400').send(PAGE_CSS),
    );
    app.get('/assets/beacon.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400').send(BEACON_JS),
    );
  };
}

/** A counted request as the tracker takes it. */
function visitOf(request: FastifyRequest): Visit {
  return {
    // Fastify works the address out anew at each read (proxy headers): once here.
    ip: request.ip,
    userAgent: request.headers['user-agent']!,
    cookie: request.headers.cookie,
    referrer: request.headers.referer,
    host: request.host,
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
