import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A share's token, the secret part of its address /stats/{token}: a MAC of the share's id under
 * a key of its own derived from the instance's secret (so no other use of the secret shares its
 * MACs). Unguessable without the secret, yet worked out again from the id whenever the owner
 * lists their shares, so the database holds only its SHA-256 to find the share by: a copy of
 * the database opens no share. Changing the secret changes every token (every shared address
 * stops working), as it ends every preview address and unlock cookie.
 */
export function shareToken(secretKey: string, shareId: string): string {
  return createHmac('sha256', `tagsvc analytics share key\n${secretKey}`).update(shareId).digest('base64url');
}

/** What the row keeps of the token: its SHA-256, hex. */
export function shareTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** 32 bytes of MAC in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Whether `token` has a token's shape: anything else is refused before a look-up. */
export const isShareTokenShaped = (token: string): boolean => TOKEN.test(token);

/** Whether `token` is the share's own, compared in constant time (the look-up found it by hash). */
export function isShareToken(secretKey: string, shareId: string, token: string): boolean {
  const expected = Buffer.from(shareToken(secretKey, shareId));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
