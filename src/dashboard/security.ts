import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { stringifySetCookie, type SerializeOptions } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The dashboard's defences, in one place:
 * - CSP: scripts and styles from this origin only (no inline code of either kind), never
 *   framed, framing only this origin's pages (the editor's preview), forms posting only here,
 *   no <base>.
 * - CSRF: a POST needs a same-origin Origin (or Referer when a browser sends no Origin) AND a
 *   synchronizer token. The token is an HMAC of what binds the browser: its session token when
 *   signed in, else a random pre-session cookie (so the sign-in, first-run and sign-up forms
 *   are protected too: login CSRF). An attacker can set neither cookie's value into the HMAC
 *   without the server secret.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  // frame-src: the tag editor's preview, a page of this origin (sandboxed, with a CSP of its own).
  "frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The pre-session cookie the sign-in, first-run and sign-up forms are bound to. */
export const CSRF_COOKIE = 'tagsvc_csrf';

export function securityHeaders(reply: FastifyReply): FastifyReply {
  return (
    reply
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      // Every dashboard page is personal or carries a form token: never stored by any cache.
      .header('cache-control', 'no-store')
  );
}

export function cookieOptions(secure: boolean, maxAgeSeconds?: number): SerializeOptions {
  return { httpOnly: true, sameSite: 'lax', secure, path: '/', ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}) };
}

export function setCookie(reply: FastifyReply, name: string, value: string, options: SerializeOptions): void {
  reply.header('set-cookie', stringifySetCookie(name, value, options));
}

export function newPreSessionValue(): string {
  return randomBytes(24).toString('base64url');
}

export function csrfToken(secret: string, binding: string): string {
  return createHmac('sha256', secret).update(`dashboard-csrf:${binding}`).digest('base64url');
}

/** Constant-time comparison of the token the form sent with the one its binding gives. */
export function csrfTokenMatches(secret: string, binding: string | undefined, given: unknown): boolean {
  if (binding === undefined || typeof given !== 'string') return false;
  const expected = Buffer.from(csrfToken(secret, binding));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function originOf(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/**
 * Whether a state-changing request comes from a page of this service: its Origin (or, only when
 * there is none, its Referer) is PUBLIC_BASE_URL's origin or the origin the request was sent to.
 * A request with neither header is refused: every browser sends one on a form POST.
 */
export function isSameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  const origin = request.headers.origin;
  const referer = request.headers.referer;
  const claimed = origin !== undefined ? originOf(origin) : referer !== undefined ? originOf(referer) : undefined;
  if (claimed === undefined) return false;
  return claimed === publicOrigin || claimed === originOf(`${request.protocol}://${request.host}`);
}
