import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import type { AccountTokensTable } from '../../db/schema.js';
import { transaction } from '../../db/transaction.js';
import { ApiError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { recordAudit, type RequestOrigin } from '../audit/index.js';
import { queueMail } from '../mail/index.js';
import * as repo from './account-tokens.repository.js';
import { hashToken, newSecretToken } from './secret-tokens.js';

/**
 * Single-use links mailed to a user: a password reset (one hour) and an address to verify
 * (seven days). The token is 32 random bytes; only its SHA-256 is stored, so a copy of the
 * database opens no link. A link is spent by the one request that changes something with it.
 */
type TokenPurpose = AccountTokensTable['purpose'];

const LIFETIME_MS: Record<TokenPurpose, number> = {
  password_reset: 60 * 60 * 1000,
  email_verification: 7 * 24 * 60 * 60 * 1000,
};

/** Spent and expired links are kept this long after their end, so following one says which it is. */
const KEPT_AFTER_END_MS = 30 * 24 * 60 * 60 * 1000;

/** What following a link finds: a link that works, or why it does not. */
export type LinkState = 'valid' | 'used' | 'expired' | 'unknown';

/** A new link's token for the user, stored (hashed) in `trx`. */
export async function issueToken(trx: Db, ctx: Pick<ServiceContext, 'clock'>, userId: string, purpose: TokenPurpose): Promise<string> {
  const token = newSecretToken();
  const now = ctx.clock.now();
  await repo.deleteAccountTokensExpiredBefore(trx, new Date(now.getTime() - KEPT_AFTER_END_MS).toISOString());
  await repo.insertAccountToken(trx, {
    id: newId('tok'),
    user_id: userId,
    purpose,
    token_hash: hashToken(token),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + LIFETIME_MS[purpose]).toISOString(),
  });
  return token;
}

/** The address a link opens: PUBLIC_BASE_URL, the page, the token. */
export function linkTo(ctx: Pick<ServiceContext, 'config'>, path: string, token: string): string {
  return `${ctx.config.publicBaseUrl}${path}?token=${token}`;
}

// Tokens are 43 characters; anything much longer is not one, and is not worth hashing.
const looksLikeToken = (token: string) => token.length > 0 && token.length <= 128;

/** The link's token row when it works, else why not. A disabled user's links do not work. */
export async function findLink(db: Db, ctx: Pick<ServiceContext, 'clock'>, purpose: TokenPurpose, token: string) {
  const row = looksLikeToken(token) ? await repo.findAccountToken(db, hashToken(token), purpose) : undefined;
  if (!row || row.disabled === 1) return { state: 'unknown' as const };
  if (row.used_at !== null) return { state: 'used' as const };
  if (ctx.clock.now().getTime() >= Date.parse(row.expires_at)) return { state: 'expired' as const };
  return { state: 'valid' as const, row };
}

/** What a link's page says before anything is sent: whether the link works. */
export async function linkState(ctx: ServiceContext, purpose: TokenPurpose, token: string): Promise<LinkState> {
  return (await findLink(ctx.db, ctx, purpose, token)).state;
}

/** Spends the link in `trx`; the row when this request spent it, else why it does not work (another spent it first: used). */
export async function spendLink(trx: Db, ctx: Pick<ServiceContext, 'clock'>, purpose: TokenPurpose, token: string) {
  const found = await findLink(trx, ctx, purpose, token);
  if (found.state !== 'valid') return found;
  if (!(await repo.spendAccountToken(trx, found.row.id, isoNow(ctx.clock)))) return { state: 'used' as const };
  return found;
}

/** Queues the mail with a new verification link for the user, in `trx` (sign-up, resend). */
export async function queueEmailVerification(trx: Db, ctx: Pick<ServiceContext, 'clock' | 'config'>, user: { id: string; email: string }) {
  const token = await issueToken(trx, ctx, user.id, 'email_verification');
  await queueMail(trx, ctx, {
    to: user.email,
    template: 'email-verification',
    data: { link: linkTo(ctx, '/dashboard/verify-email', token) },
  });
}

/** Whether the user's address is verified; API keys wait for it. */
export async function isEmailVerified(ctx: ServiceContext, userId: string): Promise<boolean> {
  return (await repo.findUserMailState(ctx.db, userId))?.email_verified_at != null;
}

/** Refuses what an unverified address may not do yet (create an API key), with what to do about it. */
export async function requireVerifiedEmail(db: Db, userId: string): Promise<void> {
  const user = await repo.findUserMailState(db, userId);
  if (user && user.email_verified_at === null) {
    throw new ApiError(
      'forbidden',
      `verify your email address first: follow the link mailed to ${user.email} (the API Keys page sends it again)`,
    );
  }
}

/** Sends the signed-in user a new verification link; nothing when the address is verified already. */
export async function resendEmailVerification(ctx: ServiceContext, user: { userId: string }): Promise<void> {
  await transaction(ctx.db, async (trx) => {
    const row = await repo.findUserMailState(trx, user.userId);
    if (!row || row.email_verified_at !== null) return;
    await queueEmailVerification(trx, ctx, row);
  });
}

/** Follows a verification link: the address is verified (its one change), or the link's state says why not. */
export async function verifyEmail(ctx: ServiceContext, input: { token: string; origin?: RequestOrigin }): Promise<LinkState> {
  return transaction(ctx.db, async (trx) => {
    const found = await spendLink(trx, ctx, 'email_verification', input.token);
    if (found.state !== 'valid') return found.state;
    const user = await repo.findUserMailState(trx, found.row.user_id);
    if (user?.email_verified_at === null) {
      await repo.markEmailVerified(trx, found.row.user_id, isoNow(ctx.clock));
      await recordAudit(
        ctx,
        trx,
        { anonymous: true, origin: input.origin },
        {
          action: 'user.email_verified',
          targetId: found.row.user_id,
          workspace: { userId: found.row.user_id, organizationId: null },
        },
      );
    }
    return 'valid';
  });
}
