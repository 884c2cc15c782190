import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Environment } from '../../db/schema.js';
import { randomBase62, toBase62 } from '../../lib/ids.js';

/**
 * API key values: `svc_live_` or `svc_test_`, 32 random base62 characters, then a 6-character
 * base62 CRC32 of everything before it. The checksum lets secret scanners and the server reject
 * typos and made-up values without touching the database.
 */
const PREFIX_BY_ENVIRONMENT: Record<Environment, string> = { live: 'svc_live_', test: 'svc_test_' };
const KEY_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
export const DISPLAY_PREFIX_LENGTH = 12;

function checksum(body: string): string {
  return toBase62(crc32(body), 6);
}

export function generateKeyValue(environment: Environment): string {
  const body = PREFIX_BY_ENVIRONMENT[environment] + randomBase62(32);
  return body + checksum(body);
}

/** The environment of a well-formed key with a valid checksum, or null. */
export function parseKeyValue(value: string): { environment: Environment } | null {
  const match = KEY_PATTERN.exec(value);
  if (!match) return null;
  const body = value.slice(0, -6);
  if (checksum(body) !== match[3]) return null;
  return { environment: match[1] as Environment };
}

/** SHA-256, hex. One-shot: every authenticated request hashes its key, and a Hash object costs more. */
export function hashKeyValue(value: string): string {
  return hash('sha256', value, 'hex');
}

export function displayPrefix(value: string): string {
  return value.slice(0, DISPLAY_PREFIX_LENGTH);
}
