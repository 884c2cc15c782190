import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies } from 'cookie';
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

type Locked = Pick<TagsTable, 'id' | 'password_hash'>;

/** The cookie that unlocks one page for a visitor, for 30 days or until its password changes. */
export const UNLOCK_MAX_AGE_SECONDS = 30 * 24 * 3600;

export function unlockCookieName(tag: Pick<TagsTable, 'id'>): string {
  return `tagsvc_unlock_${tag.id.slice('tag_'.length)}`;
}

/** The cookie's value: a MAC of the tag and its password's hash, so a new password locks every visitor out. */
export function unlockToken(ctx: ServiceContext, tag: Locked): string {
  return createHmac('sha256', `tagsvc page unlock key\n${ctx.config.secretKey}`)
    .update(`${tag.id}\n${tag.password_hash ?? ''}`)
    .digest('base64url');
}

/** Whether the request's cookies unlock the page (a page without a password is always open). */
export function isUnlocked(ctx: ServiceContext, tag: Locked, cookieHeader: string | undefined): boolean {
  if (tag.password_hash === null) return true;
  if (!cookieHeader) return false;
  const given = parseCookies(cookieHeader)[unlockCookieName(tag)];
  if (!given) return false;
  const expected = Buffer.from(unlockToken(ctx, tag));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Whether `password` is the page's (slow on purpose: scrypt). */
export function checkPagePassword(tag: Locked, password: string): Promise<boolean> {
  return tag.password_hash === null ? Promise.resolve(true) : verifyPassword(password, tag.password_hash);
}
