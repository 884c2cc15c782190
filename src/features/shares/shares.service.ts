import type { ServiceContext } from '../../context.js';
import type { AnalyticsSharesTable } from '../../db/schema.js';
import { checkFields, notFound, validationError, whenGiven } from '../../errors.js';
import { transaction } from '../../db/transaction.js';
import { isoNow } from '../../lib/clock.js';
import { isId, newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';
import { actorOfOwner, requireChangeRights, requirePermission, type Actor } from '../accounts/index.js';
import { tagReport, type DateQuery } from '../analytics/index.js';
import { recordAudit } from '../audit/index.js';
import { checkPasswordLength, findTag, requireTag, rfc3339Instant, type TagRow } from '../tags/index.js';
import * as repo from './shares.repository.js';
import { isShareToken, isShareTokenShaped, shareToken, shareTokenHash } from './share-token.js';

/**
 * Shared reports: whoever may read a tag's analytics makes an address, /stats/{token}, that
 * shows the tag's report to anyone who has it, without an account, optionally until a time and
 * behind a password. It stays until it expires, is revoked (its row deleted) or its tag goes.
 */

/** A share as the API and the dashboard show it; the address is worked out anew from the id. */
export interface ShareView {
  id: string;
  url: string;
  expires_at: string | null;
  password_protected: boolean;
  created_at: string;
}

export interface ShareInput {
  expires_at?: string | null;
  password?: string | null;
}

/** The public address of a share (the stats page's route, src/public/stats.ts). */
export const statsPath = (token: string) => `/stats/${encodeURIComponent(token)}`;

function toShareView(ctx: ServiceContext, share: AnalyticsSharesTable): ShareView {
  return {
    id: share.id,
    url: `${ctx.config.publicBaseUrl}${statsPath(shareToken(ctx.config.secretKey, share.id))}`,
    expires_at: share.expires_at,
    password_protected: share.password_hash !== null,
    created_at: share.created_at,
  };
}

/**
 * A share's fields, every one checked (checkFields): an expiry is an RFC 3339 time after now, a
 * password 4 to 128 characters as a page's; null or left out is none.
 */
export function checkShareFields(ctx: ServiceContext, input: ShareInput) {
  return checkFields({
    expires_at: whenGiven(input.expires_at, (value) => {
      const at = rfc3339Instant(value, 'expires_at');
      if (at !== null && at <= isoNow(ctx.clock)) throw validationError('expires_at', 'expires_at must be in the future');
      return at;
    }),
    password: whenGiven(input.password, (value) => {
      checkPasswordLength(value, 'password');
      return value;
    }),
  });
}

export async function createShare(ctx: ServiceContext, actor: Actor, { id, ...input }: { id: string } & ShareInput): Promise<ShareView> {
  requirePermission(actor, 'analytics:read');
  requireChangeRights(actor);
  const tag = await requireTag(ctx, actor, id);
  const { expires_at: expiresAt, password } = await checkShareFields(ctx, input);
  const shareId = newId('shr');
  const share: AnalyticsSharesTable = {
    id: shareId,
    tag_id: tag.id,
    created_by: actor.userId,
    created_at: isoNow(ctx.clock),
    expires_at: expiresAt ?? null,
    password_hash: password ? await hashPassword(password) : null,
    token_hash: shareTokenHash(shareToken(ctx.config.secretKey, shareId)),
  };
  await transaction(ctx.db, async (trx) => {
    await repo.insertShare(trx, share);
    const details = { tag_id: tag.id };
    await recordAudit(ctx, trx, actor, { action: 'share.created', targetId: shareId, environment: tag.environment, details });
  });
  return toShareView(ctx, share);
}

/** The tag's shares, oldest first, expired ones too (their address answers 404). */
export async function listShares(ctx: ServiceContext, actor: Actor, { id }: { id: string }): Promise<ShareView[]> {
  requirePermission(actor, 'analytics:read');
  const tag = await requireTag(ctx, actor, id);
  return (await repo.listSharesOfTag(ctx.db, tag.id)).map((share) => toShareView(ctx, share));
}

/** Revokes a share: its address answers 404 from now on. Another tag's share is not found. */
export async function deleteShare(ctx: ServiceContext, actor: Actor, { id, share_id: shareId }: { id: string; share_id: string }) {
  requirePermission(actor, 'analytics:read');
  requireChangeRights(actor);
  const tag = await requireTag(ctx, actor, id);
  const deleted =
    isId('shr', shareId) &&
    (await transaction(ctx.db, async (trx) => {
      if (!(await repo.deleteShare(trx, tag.id, shareId))) return false;
      const details = { tag_id: tag.id };
      await recordAudit(ctx, trx, actor, { action: 'share.deleted', targetId: shareId, environment: tag.environment, details });
      return true;
    }));
  if (!deleted) throw notFound('Share');
}

/** A share its address opened: the share, its tag, and the tag's owner, whose report it shows. */
export interface OpenedShare {
  share: AnalyticsSharesTable;
  tag: TagRow;
  /** The tag's account (its organization, else its user) reading its analytics only, under its plan. */
  owner: Actor;
}

/**
 * The share a token opens, or undefined for every reason it opens none alike (the page answers
 * one 404): a token of no share (revoked, or never made), an expired share, a tag or an owner
 * gone. Found by the token's hash, then the token checked against the share's id in constant time.
 */
export async function openShare(ctx: ServiceContext, token: string): Promise<OpenedShare | undefined> {
  if (!isShareTokenShaped(token)) return undefined;
  const share = await repo.findShareByTokenHash(ctx.db, shareTokenHash(token));
  if (!share || !isShareToken(ctx.config.secretKey, share.id, token)) return undefined;
  if (share.expires_at !== null && share.expires_at <= isoNow(ctx.clock)) return undefined;
  const tag = await findTag(ctx, share.tag_id);
  const owner = tag && (await actorOfOwner(ctx, tag, ['analytics:read']));
  return tag && owner ? { share, tag, owner } : undefined;
}

/** The periods a shared report offers besides chosen dates. */
export const SHARED_PERIODS = ['7d', '30d', '12m'] as const;
export type SharedPeriod = (typeof SHARED_PERIODS)[number];

/** What a visitor of a shared report asks for: one of the periods, or days `from` to `to` (both included). */
export type SharedPeriodChoice = { period: SharedPeriod } | { from: string; to: string };

const DAY_MS = 86_400_000;
const shiftDay = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** A day written YYYY-MM-DD that is a real day; the day after it. Anything else is left for the report to refuse. */
function dayAfter(day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) return day;
  const next = shiftDay(day, 1);
  return shiftDay(next, -1) === day ? next : day;
}

/** Buckets a shared chart draws: days up to about two months, then months. */
const DAILY_UP_TO_DAYS = 62;

/**
 * The report's query for a choice: 7 and 30 days up to today by day, 12 months as the whole
 * months up to this one by month; chosen dates by day, or by month past two months.
 */
function reportQuery(ctx: ServiceContext, choice: SharedPeriodChoice): DateQuery & { granularity: 'day' | 'month' } {
  const today = isoNow(ctx.clock).slice(0, 10);
  const tomorrow = shiftDay(today, 1);
  if ('period' in choice) {
    if (choice.period === '12m') {
      const month = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
      month.setUTCMonth(month.getUTCMonth() - 11);
      return { start_date: month.toISOString().slice(0, 10), end_date: tomorrow, granularity: 'month' };
    }
    return { start_date: shiftDay(today, choice.period === '7d' ? -6 : -29), end_date: tomorrow, granularity: 'day' };
  }
  const end = dayAfter(choice.to);
  const days = (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${choice.from}T00:00:00Z`)) / DAY_MS;
  return { start_date: choice.from, end_date: end, granularity: days > DAILY_UP_TO_DAYS ? 'month' : 'day' };
}

/**
 * The shared tag's report for the chosen period, as its owner's own report answers it, within
 * the history of the owner's plan, with the granularity of its series. A refused date names
 * `start_date` or `end_date`, as the API's.
 */
export async function sharedReport(ctx: ServiceContext, opened: OpenedShare, choice: SharedPeriodChoice) {
  const query = reportQuery(ctx, choice);
  return { granularity: query.granularity, ...(await tagReport(ctx, opened.owner, { id: opened.tag.id, ...query })) };
}
