import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets the service must read back (a webhook's signing secret) are kept encrypted with a key
 * derived from SECRET_KEY, so the database alone, or a backup of it, does not give them away.
 *
 * AES-256-GCM under HKDF-SHA256(SECRET_KEY, info naming the purpose): each purpose has a key of
 * its own, never the key of the service's MACs. A random 12-byte IV per value. The stored form
 * is `enc1.<kid>.<iv>.<ciphertext+tag>` (base64url), where the kid names the key that sealed it,
 * so after SECRET_KEY changes the previous ones (SECRET_KEY_PREVIOUS) still open what they sealed.
 */
const VERSION = 'enc1';
/** How every sealed value starts (for a query that finds those still in clear). */
export const SEALED_PREFIX = `${VERSION}.`;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^enc1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22,})$/;

interface SealingKey {
  /** 8 characters from a hash of the key: which key sealed a value, without revealing it. */
  kid: string;
  key: Buffer;
}

/** The key that seals, and every key that may open: the current one and the previous ones, by kid. */
export interface Keyring {
  current: SealingKey;
  byKid: ReadonlyMap<string, SealingKey>;
}

/** A sealed value whose key is in no keyring of this process (its SECRET_KEY is not configured). */
export class UnknownSealingKey extends Error {
  constructor(readonly kid: string) {
    super(`sealed with key ${kid}, which is neither SECRET_KEY nor one of SECRET_KEY_PREVIOUS`);
  }
}

function sealingKey(secret: string, purpose: string): SealingKey {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `tagsvc sealed secrets: ${purpose}`, 32));
  return { kid: createHash('sha256').update(key).digest().subarray(0, 6).toString('base64url'), key };
}

/** The keys of one purpose, from the instance secret and the secrets it replaced. */
export function keyring(purpose: string, secret: string, previousSecrets: readonly string[]): Keyring {
  const current = sealingKey(secret, purpose);
  const byKid = new Map([current, ...previousSecrets.map((previous) => sealingKey(previous, purpose))].map((key) => [key.kid, key]));
  return { current, byKid };
}

/** A stored value in clear: unsealed, or as it is when it was stored before sealing existed. */
export function inClear(keys: Keyring, value: string): string {
  return value.startsWith(SEALED_PREFIX) ? unseal(keys, value) : value;
}

/** Whether the value is sealed with the keyring's current key (a rotation has nothing to do for it). */
export function isSealedWithCurrentKey(keys: Keyring, value: string): boolean {
  return SEALED.exec(value)?.[1] === keys.current.kid;
}

export function seal(keys: Keyring, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keys.current.key, iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${keys.current.kid}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

/** The plaintext of a sealed value; UnknownSealingKey when no key of the ring sealed it. */
function unseal(keys: Keyring, value: string): string {
  const parts = SEALED.exec(value);
  if (!parts) throw new Error('not a sealed value');
  const key = keys.byKid.get(parts[1]!);
  if (!key) throw new UnknownSealingKey(parts[1]!);
  const sealed = Buffer.from(parts[3]!, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(parts[2]!, 'base64url'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`sealed value does not authenticate under key ${key.kid}: altered or corrupt`);
  }
}

/** A column of sealed values, read in the order of its key and replaced only where unchanged. */
export interface SealedColumn {
  /** Up to `limit` rows whose key sorts after `after`, in key order. */
  after(after: string, limit: number): Promise<Array<{ key: string; value: string }>>;
  /** Replaces a value by another form of it, only if it is still `previous` (not changed meanwhile). */
  replace(key: string, previous: string, next: string): Promise<boolean>;
}

/** Rows read per statement when re-sealing a column. */
const RESEAL_BATCH = 500;

/**
 * Re-seals with the current key every value of `column` sealed with a previous one (or still in
 * clear): the second step of a SECRET_KEY rotation. A value changed meanwhile was sealed with the
 * current key by its writer and is left alone; one no key of the ring opens is left as it is, and
 * counted as `unreadable`.
 */
export async function resealColumn(
  keys: Keyring,
  column: SealedColumn,
): Promise<{ total: number; reencrypted: number; unreadable: number }> {
  let total = 0;
  let reencrypted = 0;
  let unreadable = 0;
  let after = '';
  for (;;) {
    const rows = await column.after(after, RESEAL_BATCH);
    for (const row of rows) {
      total++;
      if (isSealedWithCurrentKey(keys, row.value)) continue;
      let plaintext: string;
      try {
        plaintext = inClear(keys, row.value);
      } catch (error) {
        if (!(error instanceof UnknownSealingKey)) throw error;
        unreadable++;
        continue;
      }
      if (await column.replace(row.key, row.value, seal(keys, plaintext))) reencrypted++;
    }
    if (rows.length < RESEAL_BATCH) return { total, reencrypted, unreadable };
    after = rows.at(-1)!.key;
  }
}
