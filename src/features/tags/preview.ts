import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Preview addresses: whoever may read a tag gets, with it, an address that shows its page in
 * any state (a draft, before its schedule, expired, behind its password), counted never. The
 * address carries the tag's id and an expiry under an HMAC of the instance's secret; nothing is
 * stored, so it cannot be revoked before it expires, which is why it expires soon.
 */

/** A GET hands out addresses valid to the end of the next window: one to two windows. */
const WINDOW_MS = 60 * 60 * 1000;

export function previewWindow(now: Date): number {
  return Math.floor(now.getTime() / WINDOW_MS);
}

function mac(secretKey: string, payload: string): string {
  // A key of its own, derived from the secret, so no other use of the secret shares its MACs.
  return createHmac('sha256', `tagsvc preview key\n${secretKey}`).update(payload).digest('base64url');
}

/** The preview address of a tag whose pages are on `baseUrl`, valid to the end of the window after `window`. */
export function previewUrl(secretKey: string, baseUrl: string, tagId: string, window: number): string {
  const expires = ((window + 2) * WINDOW_MS) / 1000;
  const payload = `${tagId}.${expires}`;
  return `${baseUrl}/preview/${payload}.${mac(secretKey, payload)}`;
}

/** The tag id a preview token names, when its MAC holds and it has not expired; else undefined. */
export function previewedTagId(secretKey: string, token: string, now: Date): string | undefined {
  const [tagId, expires, given] = token.split('.');
  if (!tagId || !expires || !given || token.split('.').length !== 3) return undefined;
  const expected = Buffer.from(mac(secretKey, `${tagId}.${expires}`));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  return Number(expires) * 1000 > now.getTime() ? tagId : undefined;
}
