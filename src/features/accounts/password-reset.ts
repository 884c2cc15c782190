import type { ServiceContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import { isoNow } from '../../lib/clock.js';
import { hashPassword } from '../../lib/passwords.js';
import { recordAudit, type RequestOrigin } from '../audit/index.js';
import { queueMail } from '../mail/index.js';
import * as tokensRepo from './account-tokens.repository.js';
import { findLink, issueToken, linkTo, spendLink, type LinkState } from './account-tokens.js';
import * as accountsRepo from './accounts.repository.js';
import { requireNewPassword } from './accounts.service.js';
import * as sessionsRepo from './sessions.repository.js';

/**
 * Forgot password: a mail with a link valid one hour (account-tokens.ts) → a new password, and
 * every session of the user ends. Asking answers the same whether the address has an account
 * or not: the work that differs (a token and a queued mail, one transaction) is small, and the
 * mail itself leaves from the worker, never from the request.
 */

/** Queues a reset link for the account of `email`, if there is one and it is not disabled; says nothing either way. */
export async function requestPasswordReset(ctx: ServiceContext, input: { email: string }): Promise<void> {
  const user = await accountsRepo.findUserByEmail(ctx.db, input.email.trim().toLowerCase());
  if (!user || user.disabled === 1) return;
  await transaction(ctx.db, async (trx) => {
    const token = await issueToken(trx, ctx, user.id, 'password_reset');
    await queueMail(trx, ctx, {
      to: user.email,
      template: 'password-reset',
      data: { link: linkTo(ctx, '/dashboard/reset-password', token) },
    });
  });
}

/**
 * Sets the password through a reset link: the link is spent, every other reset link of the
 * user too, and every session of the user ends, in one transaction. A password the rule refuses
 * → validation_error on `password`, the link unspent; a link that does not work → its state.
 */
export async function resetPassword(
  ctx: ServiceContext,
  input: { token: string; password: string; origin?: RequestOrigin },
): Promise<{ state: LinkState; email?: string }> {
  requireNewPassword(input.password);
  // The link first: scrypt holds a thread of the pool for tens of milliseconds, spent only for a link that works.
  const opened = await findLink(ctx.db, ctx, 'password_reset', input.token);
  if (opened.state !== 'valid') return { state: opened.state };
  const passwordHash = await hashPassword(input.password);
  return transaction(ctx.db, async (trx) => {
    const found = await spendLink(trx, ctx, 'password_reset', input.token);
    if (found.state !== 'valid') return { state: found.state };
    const { user_id: userId, email } = found.row;
    const at = isoNow(ctx.clock);
    await sessionsRepo.updateUserPassword(trx, userId, passwordHash, at);
    await sessionsRepo.deleteSessionsOfUser(trx, userId);
    await tokensRepo.spendAccountTokensOf(trx, userId, 'password_reset', at);
    await recordAudit(
      ctx,
      trx,
      { anonymous: true, origin: input.origin },
      {
        action: 'user.password_reset',
        targetId: userId,
        workspace: { userId, organizationId: null },
      },
    );
    return { state: 'valid', email };
  });
}
