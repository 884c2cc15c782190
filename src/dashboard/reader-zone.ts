import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';
import type { SignedInUser } from '../features/accounts/index.js';
import { canonicalTimeZone } from '../lib/zoned-time.js';

/**
 * The time zone the dashboard shows a signed-in person's reports and times in: the zone they
 * saved on the Account page, else their browser's, else UTC. dashboard.js writes the browser's
 * zone into the `tz` cookie on every page; it is only a hint (a zone the runtime does not know
 * is ignored), so without scripts the pages are still right, in the zone they name.
 */
export const BROWSER_ZONE_COOKIE = 'tz';

export const UTC = 'UTC';

/** The browser's zone from its `tz` cookie, as the runtime spells it; undefined when absent or unknown. */
export function browserZone(request: FastifyRequest): string | undefined {
  const value = parseCookie(request.headers.cookie ?? '')[BROWSER_ZONE_COOKIE];
  return value ? canonicalTimeZone(value) : undefined;
}

export function readerZone(request: FastifyRequest, user: SignedInUser): string {
  return user.timeZone ?? browserZone(request) ?? UTC;
}
