import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { mayReadTagPage } from '../features/accounts/index.js';
import { EXPIRED_PAGE, NOT_FOUND_PAGE, passwordPage } from '../features/pages/index.js';
import { findMovedTag, findTagForPage, isUnlocked, publicationAt, viewCapReached, type TagRow } from '../features/tags/index.js';
import { isId, isShortId } from '../lib/ids.js';
import { andThen, type MaybePromise } from '../lib/maybe-promise.js';

/** Why an address shows no page: each is answered in its own way (refuse()). */
export type Refusal =
  { kind: 'missing' } | { kind: 'moved'; shortId: string } | { kind: 'expired'; url: string | null } | { kind: 'locked'; tag: TagRow };

/**
 * What the gate checks: `address`, that the tag exists, may be read and is published (QR codes
 * and preview images, which an expired page keeps: its address still answers, with its 302 or
 * 410); `unlock`, that its page is not expired either (the password form); `page`, that it is
 * unlocked too (the page, its files and its links).
 */
export type GateCheck = 'address' | 'unlock' | 'page';

const MISSING: Refusal = { kind: 'missing' };

export const isRefusal = (admitted: TagRow | Refusal): admitted is Refusal => 'kind' in admitted;

/**
 * No script, no inline style, nothing from other origins but images: user content cannot run
 * code here even if a sanitizer rule were missed. Forms post nowhere, except the password
 * form, to its own origin.
 */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const FORM_CSP = PAGE_CSP.replace("form-action 'none'", "form-action 'self'");

/** The headers of every page; a page shown to one signed-in viewer must never be kept by a shared cache. */
function pageHeaders(cacheControl: string, csp = PAGE_CSP): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    // Every view must reach the server to be counted, and every refusal to be decided anew.
    'cache-control': cacheControl,
  };
}
export const PUBLIC_PAGE = pageHeaders('no-store');
export const PRIVATE_PAGE = pageHeaders('private, no-store');
export const FORM_PAGE = pageHeaders('private, no-store', FORM_CSP);
const NOT_FOUND_BODY = Buffer.from(NOT_FOUND_PAGE);
const EXPIRED_BODY = Buffer.from(EXPIRED_PAGE);

/** An address a page may have: a short id, never a tag's long id (which the API takes). */
export function isPageAddress(value: string): boolean {
  return isShortId(value) && !isId('tag', value);
}

/**
 * Decides whether a public address shows its tag, before anything of the tag is shown: the
 * tag's permissions, status, schedule, view cap and password, and the addresses it left (a
 * renamed tag's old address moves to its new one). A draft or scheduled page, and a tag a
 * visitor may not read, are missing alike. Not async: a public tag found in the cache, with
 * nothing to check, is admitted without a trip through the microtask queue.
 */
export class PageGate {
  constructor(private readonly ctx: ServiceContext) {}

  admit(request: FastifyRequest, shortId: string, check: GateCheck): MaybePromise<TagRow | Refusal> {
    if (!isPageAddress(shortId)) return MISSING;
    return andThen(findTagForPage(this.ctx, shortId), (tag) => {
      if (!tag) return this.moved(request, shortId);
      if (tag.read_permission === 'public') return this.open(request, tag, check);
      return mayReadTagPage(this.ctx, request.headers.cookie, tag).then((may) => (may ? this.open(request, tag, check) : MISSING));
    });
  }

  /** An address no tag holds: the old address of a tag that is still there to see moves to its new one. */
  private async moved(request: FastifyRequest, shortId: string): Promise<Refusal> {
    const tag = await findMovedTag(this.ctx, shortId);
    if (!tag || publicationAt(tag, this.ctx.clock.now()) === 'hidden') return MISSING;
    if (!(await mayReadTagPage(this.ctx, request.headers.cookie, tag))) return MISSING;
    return { kind: 'moved', shortId: tag.short_id };
  }

  private open(request: FastifyRequest, tag: TagRow, check: GateCheck): MaybePromise<TagRow | Refusal> {
    if (
      tag.status === 'published' &&
      tag.publish_at === null &&
      tag.expires_at === null &&
      tag.max_views === null &&
      tag.password_hash === null
    ) {
      return tag;
    }
    const publication = publicationAt(tag, this.ctx.clock.now());
    if (publication === 'hidden') return MISSING;
    if (check === 'address') return tag;
    const expired: Refusal = { kind: 'expired', url: tag.expired_url };
    if (publication === 'expired') return expired;
    const locked = (): TagRow | Refusal =>
      check === 'page' && !isUnlocked(this.ctx, tag, request.headers.cookie) ? { kind: 'locked', tag } : tag;
    if (tag.max_views === null) return locked();
    return viewCapReached(this.ctx, tag).then((reached) => (reached ? expired : locked()));
  }
}

/** The same address with the tag's current short id: /t/old/files/x → /t/new/files/x. */
function movedUrl(request: FastifyRequest, shortId: string): string {
  return request.url.replace(/^\/([ts])\/[^/?#]+/, (_match, door: string) => `/${door}/${encodeURIComponent(shortId)}`);
}

/** Where a locked page's form posts. */
export const unlockPath = (shortId: string) => `/t/${encodeURIComponent(shortId)}/unlock`;

/**
 * Answers a refusal with a page a visitor understands. A move is permanent (printed codes keep
 * working) but not cached: the tag may take its old address back one day.
 */
export function refuse(request: FastifyRequest, reply: FastifyReply, refusal: Refusal, scan = false): FastifyReply {
  switch (refusal.kind) {
    case 'missing':
      return reply.code(404).headers(PUBLIC_PAGE).send(NOT_FOUND_BODY);
    case 'moved':
      return reply.code(301).header('cache-control', 'no-store').redirect(movedUrl(request, refusal.shortId), 301);
    case 'expired':
      if (refusal.url) return reply.header('cache-control', 'no-store').redirect(refusal.url, 302);
      return reply.code(410).headers(PUBLIC_PAGE).send(EXPIRED_BODY);
    case 'locked':
      return reply
        .code(401)
        .headers(FORM_PAGE)
        .send(passwordPage({ action: unlockPath(refusal.tag.short_id), via: scan ? 'scan' : 'page' }));
  }
}
