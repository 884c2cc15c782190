import { createHash } from 'node:crypto';

/**
 * Files served under a name that changes with their content: `tags.js` with its bytes →
 * `tags.<first 12 hex digits of their SHA-256>.js`. A changed file gets a new address, so every
 * copy may be kept for good and a page never meets a stale one.
 */
export function hashedName(name: string, body: string | Buffer): string {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
}

/** How a file under a hashed name is cached: a year, never revalidated. */
export const CACHED_FOR_GOOD = 'public, max-age=31536000, immutable';
