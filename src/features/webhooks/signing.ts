import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (what the `standardwebhooks` and `svix` verifiers check):
 * base64 HMAC-SHA256 of "{id}.{timestamp}.{body}". A `whsec_` secret is used as its decoded
 * bytes; any other secret string as its UTF-8 bytes.
 */
const PREFIX = 'whsec_';

export function generateSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

function secretBytes(secret: string): Buffer {
  return secret.startsWith(PREFIX) ? Buffer.from(secret.slice(PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** Headers a webhook's custom headers may not replace. */
export const PROTECTED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent', 'content-length', 'host'];

export function signedHeaders(secret: string, eventId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(secret, eventId, timestampSeconds, body),
  };
}
