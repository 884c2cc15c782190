import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { ServiceContext } from '../../context.js';
import type { TagsTable } from '../../db/schema.js';
import { verifyPassword } from '../../lib/passwords.js';

/**
 * Whether a tag's page is shown to the public, and to whom: its status and schedule, the cap
 * on its views, and its password. The public pages ask here; only previews skip it.
 */

/** hidden: a draft, or before publish_at (answered as a missing tag); expired: from expires_at on. */
export type Publication = 'hidden' | 'expired' | 'live';

type Scheduled = Pick<TagsTable, 'status' | 'publish_at' | 'expires_at'>;

export function publicationAt(tag: Scheduled, now: Date): Publication {
  if (tag.status === 'draft') return 'hidden';
  if (tag.publish_at === null && tag.expires_at === null) return 'live';
  // Stored times are ISO strings in UTC, which compare in time order.
  const at = now.toISOString();
  if (tag.publish_at !== null && at < tag.publish_at) return 'hidden';
  if (tag.expires_at !== null && at >= tag.expires_at) return 'expired';
  return 'live';
}

type Capped = Pick<TagsTable, 'id' | 'max_views'>;

/** Whether a tag with max_views has shown every view it may (its next view would be one too many). */
export async function viewCapReached(ctx: ServiceContext, tag: Capped): Promise<boolean> {
  if (tag.max_views === null) return false;
  const row = await ctx.db.selectFrom('tag_view_counts').select('views').where('tag_id', '=', tag.id).executeTakeFirst();
  return (row?.views ?? 0) >= tag.max_views;
}

/**
 * Claims one of a capped tag's views for a visit about to be shown: false when none is left.
 * One statement, so concurrent visits never claim more than the cap. Raising max_views later
 * leaves views to claim again; the count itself is never reset.
 */
export async function claimCountedView(ctx: ServiceContext, tag: Capped): Promise<boolean> {
  if (tag.max_views === null) return true;
  const claimed = await ctx.db
    .insertInto('tag_view_counts')
    .values({ tag_id: tag.id, views: 1 })
    .onConflict((oc) =>
      oc
        .column('tag_id')
        .doUpdateSet({ views: sql<number>`tag_view_counts.views + 1` })
        .where('tag_view_counts.views', '<', tag.max_views!),
    )
    .returning('views')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** What a password locks: a tag's page, or a tag's report shared at its own address (features/shares). */
type Locked = Pick<TagsTable, 'id' | 'password_hash'>;

/** The cookie that unlocks one page for a visitor, for 30 days or until its password changes. */
export const UNLOCK_MAX_AGE_SECONDS = 30 * 24 * 3600;

/** The cookie's name: a tag's id without its prefix (as it always was), any other id whole. */
export function unlockCookieName(locked: Pick<TagsTable, 'id'>): string {
  return `tagsvc_unlock_${locked.id.replace(/^tag_/, '')}`;
}

/** The cookie's value: a MAC of the tag and its password's hash, so a new password locks every visitor out. */
export function unlockToken(ctx: ServiceContext, tag: Locked): string {
  return createHmac('sha256', `tagsvc page unlock key\n${ctx.config.secretKey}`)
    .update(`${tag.id}\n${tag.password_hash ?? ''}`)
    .digest('base64url');
}

// A cached tag row is shared and never mutated: its cookie's name and expected value are worked
// out once per row, not on each request of a gated page.
const expectedCookies = new WeakMap<Locked, { prefix: string; value: Buffer }>();

/** The value of cookie `name=` in a Cookie header, without parsing the others. */
function cookieValue(header: string, prefix: string): string | undefined {
  let at = header.indexOf(prefix);
  while (at !== -1 && at > 0 && header[at - 1] !== ' ' && header[at - 1] !== ';') at = header.indexOf(prefix, at + 1);
  if (at === -1) return undefined;
  const end = header.indexOf(';', at);
  return header.slice(at + prefix.length, end === -1 ? undefined : end).trim();
}

/** Whether the request's cookies unlock the page (a page without a password is always open). */
export function isUnlocked(ctx: ServiceContext, tag: Locked, cookieHeader: string | undefined): boolean {
  if (tag.password_hash === null) return true;
  if (!cookieHeader) return false;
  let expected = expectedCookies.get(tag);
  if (!expected) expectedCookies.set(tag, (expected = { prefix: `${unlockCookieName(tag)}=`, value: Buffer.from(unlockToken(ctx, tag)) }));
  const given = cookieValue(cookieHeader, expected.prefix);
  if (!given) return false;
  const actual = Buffer.from(given, 'latin1');
  return expected.value.length === actual.length && timingSafeEqual(expected.value, actual);
}

/** Whether `password` is the page's (slow on purpose: scrypt). */
export function checkPagePassword(tag: Locked, password: string): Promise<boolean> {
  return tag.password_hash === null ? Promise.resolve(true) : verifyPassword(password, tag.password_hash);
}
