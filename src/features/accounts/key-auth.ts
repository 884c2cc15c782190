import { timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../../context.js';
import { unauthorized } from '../../errors.js';
import { andThen, type MaybePromise } from '../../lib/maybe-promise.js';
import { exactCache, type CacheSnapshot } from '../../perf/exact-cache.js';
import type { KeyActor } from './actor.js';
import { findKeyForAuthentication, touchKeyLastUsed } from './accounts.repository.js';
import { hashKeyValue, parseKeyValue } from './key-format.js';
import type { Permission } from './permissions.js';

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The actor an enabled API key acts as, or 401: unknown, malformed or disabled key, or a key of
 * a disabled user (the spec's 401 for a disabled key: the key is as unusable as one). A key
 * found in the cache is answered without a promise (most requests: see http/auth.ts).
 */
export function actorOfKey(ctx: ServiceContext, value: string): MaybePromise<KeyActor> {
  const hash = hashKeyValue(value);
  // Enabled keys by hash, exact (perf/exact-cache.ts). Only keys that passed the format check
  // below are ever cached, so a hit needs no new check.
  return andThen(exactCache<KeyActor>(ctx.db, 'keys')?.snapshot(), (cache) => cache?.get(hash) ?? loadActor(ctx, value, hash, cache));
}

async function loadActor(ctx: ServiceContext, value: string, hash: string, cache: CacheSnapshot<KeyActor> | undefined): Promise<KeyActor> {
  if (!parseKeyValue(value)) throw unauthorized('Invalid API key');
  const row = await findKeyForAuthentication(ctx.db, hash);
  if (!row || !sameHash(row.key_hash, hash)) throw unauthorized('Invalid API key');
  if (row.enabled !== 1) throw unauthorized('This API key is disabled');
  // Disabling a user announces a change to the keys topic, so no cached actor of theirs survives it.
  if (row.user_disabled === 1) throw unauthorized('The account of this API key is disabled');
  const actor: KeyActor = {
    userId: row.user_id,
    email: row.email,
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    environment: row.environment,
    permissions: JSON.parse(row.permissions) as Permission[],
    plan: row.organization_plan ?? row.user_plan,
    key: {
      id: row.id,
      name: row.name,
      scope: row.scope,
      ipAllowlist: row.ip_allowlist ? (JSON.parse(row.ip_allowlist) as string[]) : null,
    },
  };
  cache?.set(hash, actor);
  return actor;
}

/** Records when a key was last used (the caller decides how often). */
export async function recordKeyUse(ctx: ServiceContext, keyId: string, at: string): Promise<void> {
  await touchKeyLastUsed(ctx.db, keyId, at);
}
