import { createHash, randomBytes } from 'node:crypto';

/**
 * The secrets a browser or a mail link carries (session, pending sign-in, reset, verification
 * and invitation tokens): 256 random bits, stored only as their SHA-256, so a copy of the
 * database lets no one in. A hash, not a slow password hash: the token has all the entropy.
 */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
