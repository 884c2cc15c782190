import type { ServiceContext } from '../../context.js';
import type { Actor } from '../accounts/index.js';
import { addressFault, takenFrom } from './addresses.js';
import { requireTag } from './tags.service.js';
import * as repo from './tags.repository.js';

/**
 * Whether an address can be chosen: `available`; `taken` by another tag, now or before;
 * `malformed`, not 3 to 64 of A-Z a-z 0-9 - _; `reserved`, a word of the service's own.
 */
export type AddressCheck = { result: 'available' | 'taken' | 'malformed' | 'reserved' };

/**
 * Whether `short_id` can be chosen, by a new tag or by the tag `tag_id` (which the actor must
 * reach): free, or one of that tag's own addresses, now or before. It says nothing else about
 * an address another tag holds, neither which tag nor whose: the API answers a create with it
 * 409 short_id_taken just the same.
 */
export async function checkAddress(
  ctx: ServiceContext,
  actor: Actor,
  { short_id: shortId, tag_id: tagId }: { short_id: string; tag_id?: string },
): Promise<AddressCheck> {
  const own = tagId === undefined ? undefined : (await requireTag(ctx, actor, tagId)).id;
  const fault = addressFault(shortId);
  if (fault !== undefined) return { result: fault };
  return { result: takenFrom(await repo.findAddresses(ctx.db, shortId), own) ? 'taken' : 'available' };
}
