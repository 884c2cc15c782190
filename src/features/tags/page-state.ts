import type { ServiceContext } from '../../context.js';
import type { TagsTable } from '../../db/schema.js';
import { publicationAt } from './publication.js';
import * as repo from './tags.repository.js';

/**
 * What the public gets from a tag's page now, in one word, as the public pages decide it
 * (publication.ts): `draft`; `scheduled`, published with its publish_at still ahead; `expired`,
 * from its expires_at on or once max_views views were counted; else `live`. A password does
 * not change it: a live page behind one is live to whoever knows the password.
 */
export type PageState = 'draft' | 'scheduled' | 'live' | 'expired';

type Stated = Pick<TagsTable, 'id' | 'status' | 'publish_at' | 'expires_at' | 'max_views'>;

/** The state of a tag's page at `now`, given the views counted against its cap so far. */
export function pageStateAt(tag: Stated, now: Date, viewsCounted: number): PageState {
  if (tag.status === 'draft') return 'draft';
  const publication = publicationAt(tag, now);
  if (publication === 'hidden') return 'scheduled';
  // The cap's rule is viewCapReached's: the view after the last one allowed is refused.
  if (publication === 'expired' || (tag.max_views !== null && viewsCounted >= tag.max_views)) return 'expired';
  return 'live';
}

/**
 * The page states of tags the caller has read (through the actor: this reads nothing they
 * could not), by tag id: one query for the view counts of those with a cap, none without.
 */
export async function pageStates(ctx: ServiceContext, tags: readonly Stated[]): Promise<Map<string, PageState>> {
  const capped = tags.filter((tag) => tag.max_views !== null).map((tag) => tag.id);
  const counted = capped.length > 0 ? await repo.countedViews(ctx.db, capped) : new Map<string, number>();
  const now = ctx.clock.now();
  return new Map(tags.map((tag) => [tag.id, pageStateAt(tag, now, counted.get(tag.id) ?? 0)]));
}
