import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import type { Block } from '../tags/blocks.js';
import { findPageHeader, findTagById } from '../tags/tags.repository.js';
import { PAGE_CSS } from './page.css.js';
import { NOT_FOUND_PAGE, renderTagPage } from './render.js';

/**
 * No script, no inline style, nothing from other origins but images: user content cannot run
 * code here even if a sanitizer rule were missed.
 */
const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SHORT_ID = /^[A-Za-z0-9]{8}$/;

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'strict-origin-when-cross-origin')
    // Every view must reach the server to be counted.
    .header('cache-control', 'no-store');
}

/**
 * The public page of each tag: /t/{short_id} (direct or referred visits) and /s/{short_id}
 * (the address in the QR code). Private and organization tags answer 404 to the public.
 */
export function pageRoutes(db: Db): FastifyPluginAsyncTypebox {
  // Rendered pages keyed by tag id and version: an update bumps the version, so stale pages are never served.
  const rendered = new LRUCache<string, string>({ max: 5000, maxSize: 128 * 1024 * 1024, sizeCalculation: (html) => html.length * 2 });

  async function renderedPage(shortId: string): Promise<string | undefined> {
    const header = await findPageHeader(db, shortId);
    if (!header || header.read_permission !== 'public') return undefined;
    const key = `${header.id}:${header.version}`;
    const cached = rendered.get(key);
    if (cached) return cached;
    const tag = await findTagById(db, header.id);
    if (!tag) return undefined;
    const html = renderTagPage({ title: tag.title, blocks: JSON.parse(tag.content) as Block[] }, (fileId) => `/t/${tag.short_id}/files/${fileId}`);
    rendered.set(key, html);
    return html;
  }

  return async (app) => {
    const schema = { params: Type.Object({ shortId: Type.String() }), hide: true };
    const handler = async (request: { params: { shortId: string } }, reply: FastifyReply) => {
      const html = SHORT_ID.test(request.params.shortId) ? await renderedPage(request.params.shortId) : undefined;
      return pageHeaders(reply)
        .code(html ? 200 : 404)
        .send(html ?? NOT_FOUND_PAGE);
    };
    app.get('/t/:shortId', { schema }, handler);
    app.get('/s/:shortId', { schema }, handler);
    app.get('/assets/page.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=86400').send(PAGE_CSS),
    );
  };
}
