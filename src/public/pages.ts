import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { ApiError, DependencyUnavailable, isOutsideFault } from '../errors.js';
import { logOutsideFault } from '../http/error-handler.js';
import { andThen, handled, type MaybePromise } from '../lib/maybe-promise.js';
import type { Tracker, Visit } from '../features/analytics/index.js';
import { sendTagged } from '../http/conditional.js';
import { pageFiles } from '../features/files/index.js';
import {
  claimCountedView,
  findTag,
  normalizeColor,
  previewedTagId,
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
  pageTheme,
  PRESET_STYLES,
  renderTagPage,
  splitAtBeacon,
  UNAVAILABLE_PAGE,
  withoutBeacon,
} from '../features/pages/index.js';
import { QrQuery } from '../http/schemas/tags.js';
import { isRefusal, PageGate, PRIVATE_PAGE, PUBLIC_PAGE, refuse } from './gate.js';
import { CACHED_FOR_GOOD } from '../http/hashed-names.js';

/**
 * The page's stylesheet, served from /assets/page.css so the CSP can forbid inline styles, with
 * the themes' colours after it (an owner's accent is a stylesheet of its own, src/public/accents.ts).
 */
const PAGE_CSS = `${readFileSync(new URL('page.css', import.meta.url), 'utf8')}\n${PRESET_STYLES}\n`;
/**
 * The page's only script, served from /assets/beacon.js (the CSP allows 'self' only): a
 * heartbeat every 15 s while the page is visible, and the time on page when it is hidden.
 */
const BEACON_JS = readFileSync(new URL('beacon.client.js', import.meta.url), 'utf8');

/** Anyone may ask for a public QR code: its size is bounded tighter than the API's. */
export const PUBLIC_QR_MAX_SIZE = 1024;

const PublicQrQuery = Type.Object({
  size: Type.Integer({ minimum: QR_MIN_SIZE, maximum: PUBLIC_QR_MAX_SIZE, default: 512, description: 'Pixels' }),
  color: QrQuery.properties.color,
  background: QrQuery.properties.background,
});

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
export function pageRoutes(ctx: ServiceContext, tracker: Tracker, gate: PageGate): FastifyPluginAsyncTypebox {
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

  /**
   * The tag's page as HTML (reading its files). Its web links go through the counted redirect
   * (public/links.ts), but a preview's go straight to their URLs: nothing clicked in a preview
   * is counted, and a draft's redirects are missing to everyone.
   */
  async function pageHtml(tag: TagRow, links: 'counted' | 'direct'): Promise<string> {
    const pageUrl = publicPageUrl(ctx.config, tag);
    return renderTagPage(
      {
        title: tag.title,
        blocks: JSON.parse(tag.content) as Block[],
        files: await pageFiles(ctx, tag.id),
        theme: pageTheme(tag.theme_preset, tag.theme_accent),
      },
      {
        file: (fileId) => `/t/${tag.short_id}/files/${fileId}`,
        ...(links === 'counted' ? { link: (blockId: string) => `${pageUrl}/l/${blockId}` } : {}),
        share: { pageUrl, imageUrl: `${pageUrl}/og.png` },
      },
    );
  }

  async function renderPage(tag: TagRow): Promise<RenderedPage> {
    const [beforeBeacon, afterBeacon] = splitAtBeacon(await pageHtml(tag, 'counted'));
    // Bytes, not text: a counted view's body is three copies, without encoding 8 kB anew.
    const page = {
      uncounted: Buffer.from(beforeBeacon + afterBeacon),
      beforeBeacon: Buffer.from(beforeBeacon),
      afterBeacon: Buffer.from(afterBeacon),
    };
    rendered.set(pageKey(tag), page);
    return page;
  }

  /**
   * A tag's page, its view counted, once the gate admits it. Not async: a public tag found in
   * the cache, whose page is kept, for a visit that is not counted, is answered without a trip
   * through the microtask queue.
   */
  function page(request: FastifyRequest, reply: FastifyReply, shortId: string, scan: boolean): MaybePromise<FastifyReply> {
    const shown = andThen(gate.admit(request, shortId, 'page'), (admitted) =>
      isRefusal(admitted) ? refuse(request, reply, admitted, scan) : show(request, reply, admitted, scan),
    );
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
      if (!tracker.counts(request.method, request.headers['user-agent'])) {
        tracker.countBotRequest(request.method, tag.id);
        return reply.code(200).headers(headers).send(rendered.uncounted);
      }
      if (tag.max_views !== null) return countCapped(request, reply, tag, scan, rendered);
      return countAndSend(request, reply, tag, scan, rendered);
    });
  }

  /** A capped page's view is claimed before it is shown: the visit after the last is told the page expired. */
  async function countCapped(request: FastifyRequest, reply: FastifyReply, tag: TagRow, scan: boolean, rendered: RenderedPage) {
    if (!(await claimCountedView(ctx, tag))) return refuse(request, reply, { kind: 'expired', url: tag.expired_url }, scan);
    return countAndSend(request, reply, tag, scan, rendered);
  }

  function countAndSend(request: FastifyRequest, reply: FastifyReply, tag: TagRow, scan: boolean, rendered: RenderedPage) {
    const headers = tag.read_permission === 'public' ? PUBLIC_PAGE : PRIVATE_PAGE;
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
  }

  return async (app) => {
    const schema = { params: Type.Object({ shortId: Type.String() }), hide: true };
    app.get('/t/:shortId', { schema }, (request, reply) => handled(page(request, reply, request.params.shortId, false)));
    app.get('/s/:shortId', { schema }, (request, reply) => handled(page(request, reply, request.params.shortId, true)));

    // The page in any state, for whoever was given its address by a read of the tag: never counted.
    app.get(
      '/preview/:token',
      { schema: { params: Type.Object({ token: Type.String({ maxLength: 256 }) }), hide: true } },
      async (request, reply) => {
        const tagId = previewedTagId(ctx.config.secretKey, request.params.token, ctx.clock.now());
        const tag = tagId ? await findTag(ctx, tagId) : undefined;
        if (!tag) return refuse(request, reply, { kind: 'missing' });
        // Rendered anew each time: previews are few, and their links differ from the page's.
        const html = withoutBeacon(await pageHtml(tag, 'direct'));
        return reply.code(200).headers(PRIVATE_PAGE).header('x-robots-tag', 'noindex').send(html);
      },
    );

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
          const admitted = await gate.admit(request, request.params.shortId, 'address');
          if (!isRefusal(admitted) && admitted.read_permission !== 'public') throw new ApiError('not_found', 'Not found');
          if (isRefusal(admitted)) {
            if (admitted.kind === 'moved') return refuse(request, reply, admitted);
            throw new ApiError('not_found', 'Not found');
          }
          const tag = admitted;
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
        .header('cache-control', CACHED_FOR_GOOD)
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

/** A counted request as the tracker takes it (a page's view, a link's click). */
export function visitOf(request: FastifyRequest): Visit {
  return {
    // Fastify works the address out anew at each read (proxy headers): once here.
    ip: request.ip,
    userAgent: request.headers['user-agent']!,
    cookie: request.headers.cookie,
    referrer: request.headers.referer,
    host: request.host,
    query: request.query,
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
