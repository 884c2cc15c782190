import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Type } from 'typebox';
import { isOutsideFault } from '../errors.js';
import type { Tracker } from '../features/analytics/index.js';
import { isWebLink, type Block, type TagRow } from '../features/tags/index.js';
import { isRefusal, refuse, type PageGate } from './gate.js';
import { visitOf } from './pages.js';

/** A web link block of a page, as its redirect needs it. */
interface WebLink {
  id: string;
  url: string;
  label: string;
  /** The URL as a Location header carries it: parsed and serialized, so non-ASCII is percent-encoded. */
  location: string;
}

/**
 * The redirect is never cached, so every click reaches the server to be counted; and the
 * destination learns nothing of the page it came from, as the page's own links promised
 * (rel="noreferrer"): the redirect is where a browser would otherwise take its Referer from.
 */
const REDIRECT_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/**
 * The counted links of public pages: each http(s) link block points at
 * `/t/{short_id}/l/{block_id}`, which records the click (as a view is: GET only, bots not
 * counted, the same visitor id) and answers 302 to the link. The page's gate holds here too: a
 * link of a page a visitor may not see is missing, expired or locked as the page is. A block
 * that is not a web link of the tag (removed, or a tel:, mailto: or sms: link, which the page
 * links directly) is the page's 404. A click that cannot be stored (the disk full, the database
 * out of reach) still sends the visitor on: the click is lost, not the link.
 */
export function linkRoutes(tracker: Tracker, gate: PageGate): FastifyPluginAsyncTypebox {
  // Each tag version's web links by block id, so a click reads no page content: a version is
  // never changed, only replaced.
  const linksByVersion = new LRUCache<string, ReadonlyMap<string, WebLink>>({ max: 5000 });

  function webLinks(tag: TagRow): ReadonlyMap<string, WebLink> {
    const key = `${tag.id}:${tag.version}`;
    let links = linksByVersion.get(key);
    if (!links) {
      links = new Map(
        (JSON.parse(tag.content) as Block[]).flatMap((block) =>
          block.type === 'link' && isWebLink(block.url)
            ? [[block.id, { id: block.id, url: block.url, label: block.label, location: new URL(block.url).href }] as const]
            : [],
        ),
      );
      linksByVersion.set(key, links);
    }
    return links;
  }

  /** Follows a link: the gate, the block, the click recorded when it counts, then the redirect. */
  async function follow(request: FastifyRequest, reply: FastifyReply, shortId: string, blockId: string): Promise<FastifyReply> {
    const admitted = await gate.admit(request, shortId, 'page');
    if (isRefusal(admitted)) return refuse(request, reply, admitted);
    const link = webLinks(admitted).get(blockId);
    if (!link) return refuse(request, reply, { kind: 'missing' });
    if (tracker.counts(request.method, request.headers['user-agent'])) {
      const click = tracker.recordClick(visitOf(request), admitted, link);
      reply.header('set-cookie', click.setCookie);
      try {
        await click.stored;
      } catch (error) {
        // The recorder logged the failure.
        if (!isOutsideFault(error)) throw error;
      }
    }
    return reply.headers(REDIRECT_HEADERS).redirect(link.location, 302);
  }

  return async (app) => {
    app.get(
      '/t/:shortId/l/:blockId',
      { schema: { params: Type.Object({ shortId: Type.String(), blockId: Type.String() }), hide: true } },
      (request, reply) => follow(request, reply, request.params.shortId, request.params.blockId),
    );
  };
}
