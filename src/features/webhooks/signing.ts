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

// Standard base64 with its padding: what the Standard Webhooks verifiers decode, strictly.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Why a secret cannot sign, or undefined. A `whsec_` secret must be base64 the verifiers can
 * decode: Node's decoder skips what is not base64 (`whsec_` alone is an empty key, which
 * anyone can sign with), while `standardwebhooks` and `svix` refuse it, so no receiver using
 * them could verify a delivery.
 */
export function secretProblem(secret: string): string | undefined {
  if (!secret.startsWith(PREFIX)) return undefined;
  const encoded = secret.slice(PREFIX.length);
  return encoded !== '' && BASE64.test(encoded)
    ? undefined
    : 'a whsec_ secret must be standard base64 (with its = padding) of at least one byte';
}

function secretBytes(secret: string): Buffer {
  return secret.startsWith(PREFIX) ? Buffer.from(secret.slice(PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** Headers a webhook's custom headers may not replace. */
export const PROTECTED_HEADERS = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'user-agent',
  'content-length',
  'host',
];

export function signedHeaders(secret: string, eventId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(secret, eventId, timestampSeconds, body),
  };
}
