import { randomInt } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import type { ServiceContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import { ApiError, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { verifyPassword } from '../../lib/passwords.js';
import { recordAudit, type AuditAction, type AuditEntry, type RequestOrigin } from '../audit/index.js';
import { inClear, keyring, resealColumn, seal, UnknownSealingKey } from '../../lib/sealed-secrets.js';
import * as accountsRepo from './accounts.repository.js';
import { isTwoFactorRequired } from './instance-admin.service.js';
import { actorOfUser, isOperator, type AccountActor } from './actor.js';
import { deleteSessionsOfUser } from './sessions.repository.js';
import { hashToken, newSecretToken } from './secret-tokens.js';
import type { SignedInUser } from './sessions.js';
import * as repo from './two-factor.repository.js';

/**
 * Two-factor sign-in: an authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 seconds, one step
 * either side for clocks that drift), ten single-use recovery codes, and passkeys
 * (passkeys.service.ts). After the password, a browser holds a pending sign-in (minutes long,
 * server-side) and only gets a session once it gives the second factor.
 */

/** How long a browser has between the password and the second factor. */
export const PENDING_SIGN_IN_MS = 10 * 60_000;
/** Wrong codes one pending sign-in takes before it ends (the password must be given again). */
const PENDING_SIGN_IN_FAILURES = 5;
export const PENDING_SIGN_IN_COOKIE = 'tagsvc_sign_in';
const RECOVERY_CODE_COUNT = 10;

const ISSUER = 'tagsvc';
/** The HKDF info of the key that seals authenticator secrets, and nothing else. */
const PURPOSE = 'totp secrets';

const keysOf = (ctx: Pick<ServiceContext, 'config'>) => keyring(PURPOSE, ctx.config.secretKey, ctx.config.previousSecretKeys);

/** The user acting on their own sign-in (never an organization's), and the entry of `action` in their own space. */
export function ownAudit(user: SignedInUser, action: AuditAction, details?: AuditEntry['details']) {
  const actor = actorOfUser({ ...user, workspace: undefined });
  return { actor, entry: { action, targetId: user.userId, workspace: { userId: user.userId, organizationId: null }, details } };
}

/**
 * An authenticator secret in clear, or undefined when it was sealed under a SECRET_KEY this
 * process does not have (SECRET_KEY_PREVIOUS dropped too early): logged, and the app then
 * works as if it were not set up, so recovery codes and passkeys still sign in.
 */
function openSecret(ctx: ServiceContext, stored: string): string | undefined {
  try {
    return inClear(keysOf(ctx), stored);
  } catch (error) {
    if (!(error instanceof UnknownSealingKey)) throw error;
    ctx.log.error(
      { kid: error.kid },
      `an authenticator secret is ${error.message}: add the SECRET_KEY that sealed it to SECRET_KEY_PREVIOUS`,
    );
    return undefined;
  }
}

function totpOf(secret: string, email: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** The 30-second step a code was made in, if it is one of the user's around `now`, else undefined. */
function stepOfCode(totp: OTPAuth.TOTP, code: string, now: number): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totp.validate({ token, timestamp: now, window: 1 });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}

/** Recovery codes: 10 characters of Crockford's base32 (50 bits) as `xxxxx-xxxxx`, lower case. */
const CODE_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => CODE_ALPHABET[randomInt(32)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** A typed code as stored: lower case, without spaces or dashes, 0/1 read for o/i/l. */
function recoveryCodeHash(code: string): string {
  const plain = code.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  return hashToken(plain);
}

/** Ten new recovery codes in place of the user's old ones; `ctx.db` is the transaction of the change that makes them. */
export async function newRecoveryCodes(ctx: ServiceContext, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await repo.replaceRecoveryCodes(ctx.db, userId, codes.map(recoveryCodeHash), isoNow(ctx.clock));
  return codes;
}

export interface TwoFactorStatus {
  /** An authenticator app is set up and confirmed. */
  totp: boolean;
  passkeys: PasskeyView[];
  recoveryCodesLeft: number;
  /** The instance owner requires a second factor of everyone. */
  required: boolean;
}

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export async function twoFactorStatus(ctx: ServiceContext, user: SignedInUser): Promise<TwoFactorStatus> {
  const { db } = ctx;
  const [factors, passkeys, recoveryCodesLeft, required] = await Promise.all([
    repo.secondFactorsOf(db, user.userId),
    repo.listPasskeys(db, user.userId),
    repo.countUnusedRecoveryCodes(db, user.userId),
    isTwoFactorRequired(ctx),
  ]);
  return {
    totp: factors.totp,
    passkeys: passkeys.map((row) => ({
      id: row.credential_id,
      name: row.name,
      created_at: row.created_at,
      last_used_at: row.last_used_at,
    })),
    recoveryCodesLeft,
    required,
  };
}

/** An authenticator app's enrolment: the secret as text and as an otpauth:// address in a QR code (SVG). */
export interface TotpEnrolment {
  secret: string;
  uri: string;
  qrSvg: string;
}

/**
 * Starts (or restarts) setting up an authenticator app: a new secret, kept sealed until the
 * first code confirms it. Refused while one is confirmed: it is turned off first.
 */
export async function beginTotpEnrolment(ctx: ServiceContext, user: SignedInUser): Promise<void> {
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  if (!(await repo.putUnconfirmedTotp(ctx.db, user.userId, seal(keysOf(ctx), secret), isoNow(ctx.clock)))) {
    throw new ApiError('forbidden', 'an authenticator app is already set up; turn it off first to set up another');
  }
}

/** The enrolment waiting for its first code, or undefined. */
export async function totpEnrolment(ctx: ServiceContext, user: SignedInUser): Promise<TotpEnrolment | undefined> {
  const row = await repo.findTotp(ctx.db, user.userId);
  const secret = row && row.confirmed_at === null ? openSecret(ctx, row.secret) : undefined;
  if (secret === undefined) return undefined;
  const uri = totpOf(secret, user.email).toString();
  const qrSvg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, uri, qrSvg };
}

/** Confirms the enrolment with its first code; returns the ten recovery codes, shown once. */
export async function confirmTotp(ctx: ServiceContext, user: SignedInUser, input: { code: string }): Promise<string[]> {
  const row = await repo.findTotp(ctx.db, user.userId);
  const secret = row && row.confirmed_at === null ? openSecret(ctx, row.secret) : undefined;
  if (secret === undefined) throw new ApiError('forbidden', 'there is no authenticator app being set up');
  const step = stepOfCode(totpOf(secret, user.email), input.code, ctx.clock.now().getTime());
  const { actor, entry } = ownAudit(user, 'user.two_factor_enabled', { method: 'totp' });
  return transaction(ctx.db, async (trx) => {
    if (step === undefined || !(await repo.takeTotpStep(trx, user.userId, step, isoNow(ctx.clock)))) {
      throw validationError('code', 'That code is not right. Enter the 6 digits your app shows now');
    }
    await recordAudit(ctx, trx, actor, entry);
    return newRecoveryCodes({ ...ctx, db: trx }, user.userId);
  });
}

/**
 * `tagsvc secrets rotate`: re-seals with the current SECRET_KEY every authenticator secret
 * sealed with a previous one, so SECRET_KEY_PREVIOUS can then be dropped. Secrets no
 * configured key opens are left as they are, and the command fails naming how many.
 */
export async function resealTotpSecrets(
  ctx: ServiceContext,
): Promise<{ authenticator_secrets: number; authenticator_reencrypted: number }> {
  const { total, reencrypted, unreadable } = await resealColumn(keysOf(ctx), {
    after: async (after, limit) =>
      (await repo.totpSecretsAfter(ctx.db, after, limit)).map((row) => ({ key: row.user_id, value: row.secret })),
    replace: (userId, previous, next) => repo.replaceTotpSecret(ctx.db, userId, previous, next),
  });
  if (unreadable > 0) {
    throw new ApiError(
      'internal_error',
      `${reencrypted} of ${total} authenticator secrets re-encrypted; ${unreadable} are encrypted with a key that is neither ` +
        'SECRET_KEY nor in SECRET_KEY_PREVIOUS: add that key to SECRET_KEY_PREVIOUS and run the command again',
    );
  }
  return { authenticator_secrets: total, authenticator_reencrypted: reencrypted };
}

/** Whether `code` is the user's current authenticator code, taken (it will not work again). */
async function takeTotpCode(ctx: ServiceContext, userId: string, email: string, code: string): Promise<boolean> {
  const row = await repo.findTotp(ctx.db, userId);
  const secret = row?.confirmed_at ? openSecret(ctx, row.secret) : undefined;
  if (secret === undefined) return false;
  const step = stepOfCode(totpOf(secret, email), code, ctx.clock.now().getTime());
  return step !== undefined && (await repo.takeTotpStep(ctx.db, userId, step, isoNow(ctx.clock)));
}

/**
 * Whether `code` is the user's current authenticator code (taken) or one of their unused
 * recovery codes (used up, and recorded as such in the same transaction).
 */
async function takeCode(ctx: ServiceContext, pending: PendingSignIn, code: string, origin: RequestOrigin | undefined): Promise<boolean> {
  if (await takeTotpCode(ctx, pending.userId, pending.email, code)) return true;
  if (code.replace(/[\s-]/g, '').length !== 10) return false;
  const person = { userId: pending.userId, email: pending.email, organizationId: null, environment: 'live' as const, origin };
  return transaction(ctx.db, async (trx) => {
    if (!(await repo.useRecoveryCode(trx, pending.userId, recoveryCodeHash(code), isoNow(ctx.clock)))) return false;
    await recordAudit(ctx, trx, person, { action: 'user.recovery_code_used', targetId: pending.userId });
    return true;
  });
}

/** Refuses to remove the last second factor of a user while the owner requires one. */
export async function keepOneWhenRequired(ctx: ServiceContext, userId: string, removing: 'totp' | 'passkey'): Promise<void> {
  if (!(await isTwoFactorRequired(ctx))) return;
  const { totp, passkeys } = await repo.secondFactorsOf(ctx.db, userId);
  const left = (totp && removing !== 'totp' ? 1 : 0) + passkeys - (removing === 'passkey' ? 1 : 0);
  if (left < 1)
    throw new ApiError('forbidden', 'this instance requires two-factor sign-in: add another passkey or authenticator app first');
}

/** Turns the authenticator app off, with a current code or the password; recovery codes go with it when no passkey is left. */
export async function disableTotp(ctx: ServiceContext, user: SignedInUser, input: { code_or_password: string }): Promise<void> {
  const { db } = ctx;
  const row = await repo.findTotp(db, user.userId);
  if (!row?.confirmed_at) throw new ApiError('forbidden', 'no authenticator app is set up');
  await keepOneWhenRequired(ctx, user.userId, 'totp');
  const given = input.code_or_password;
  const userRow = await accountsRepo.findUserById(db, user.userId);
  const proven =
    (userRow !== undefined && (await verifyPassword(given, userRow.password_hash))) ||
    (await takeTotpCode(ctx, user.userId, user.email, given));
  if (!proven) throw validationError('code_or_password', 'Enter a current code from your app, or your password');
  const { actor, entry } = ownAudit(user, 'user.two_factor_disabled', { method: 'totp' });
  await transaction(db, async (trx) => {
    await repo.deleteTotp(trx, user.userId);
    await recordAudit(ctx, trx, actor, entry);
    if ((await repo.secondFactorsOf(trx, user.userId)).passkeys === 0) await repo.deleteRecoveryCodes(trx, user.userId);
  });
}

/** New recovery codes in place of the old ones (used or not); for a user with a second factor. */
export async function regenerateRecoveryCodes(ctx: ServiceContext, user: SignedInUser): Promise<string[]> {
  const { totp, passkeys } = await repo.secondFactorsOf(ctx.db, user.userId);
  if (!totp && passkeys === 0) throw new ApiError('forbidden', 'set up an authenticator app or a passkey first');
  const { actor, entry } = ownAudit(user, 'user.recovery_codes_regenerated');
  return transaction(ctx.db, async (trx) => {
    await recordAudit(ctx, trx, actor, entry);
    return newRecoveryCodes({ ...ctx, db: trx }, user.userId);
  });
}

/**
 * The operator's way back in for someone who lost both their second factors and their recovery
 * codes (`tagsvc user reset-two-factor`): the authenticator app, passkeys and recovery codes go,
 * and every session of the user ends. Their password alone signs in again; while the owner
 * requires two factors, it leads straight to setting one up.
 */
export async function resetTwoFactor(ctx: ServiceContext, actor: AccountActor, input: { email: string }) {
  if (!isOperator(actor)) throw new ApiError('forbidden', 'only the operator can do this');
  const user = await accountsRepo.findUserByEmail(ctx.db, input.email.trim().toLowerCase());
  if (!user) throw new ApiError('not_found', `User ${input.email} not found`);
  const entry = {
    action: 'user.two_factor_disabled',
    targetId: user.id,
    workspace: { userId: user.id, organizationId: null },
    details: { reset: true },
  } as const;
  return transaction(ctx.db, async (trx) => {
    const removed = await repo.deleteSecondFactors(trx, user.id);
    const [ended] = await deleteSessionsOfUser(trx, user.id);
    await recordAudit(ctx, trx, actor, entry);
    return {
      id: user.id,
      email: user.email,
      authenticator_removed: removed.authenticator,
      passkeys_removed: removed.passkeys,
      sessions_ended: Number(ended?.numDeletedRows ?? 0),
    };
  });
}

/** Whether signing in as this user takes a second factor, and which ones they have. */
export function secondFactorsOf(ctx: ServiceContext, userId: string) {
  return repo.secondFactorsOf(ctx.db, userId);
}

/** After the right password: a pending sign-in, whose token the browser keeps until the second factor. */
export async function startPendingSignIn(ctx: ServiceContext, userId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecretToken();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + PENDING_SIGN_IN_MS);
  await repo.insertPendingSignIn(
    ctx.db,
    { token_hash: hashToken(token), user_id: userId, expires_at: expiresAt.toISOString() },
    now.toISOString(),
  );
  return { token, expiresAt };
}

export interface PendingSignIn {
  userId: string;
  email: string;
  totp: boolean;
  passkeys: number;
}

/** The pending sign-in of `token`, unless unknown, expired or its user disabled since. */
export async function findPendingSignIn(ctx: ServiceContext, token: string | undefined): Promise<PendingSignIn | undefined> {
  if (!token || token.length > 128) return undefined;
  const row = await repo.findPendingSignIn(ctx.db, hashToken(token));
  if (!row || row.disabled === 1 || Date.parse(row.expires_at) <= ctx.clock.now().getTime()) return undefined;
  return { userId: row.user_id, email: row.email, ...(await repo.secondFactorsOf(ctx.db, row.user_id)) };
}

/** What a second-factor code came to: the user to start a session for, or a wrong code (and whether they may try again). */
type CodeOutcome = { userId: string } | { wrong: true; canRetry: boolean };

/**
 * The second step of a password sign-in with an authenticator or recovery code. A right code
 * ends the pending sign-in (once, whatever races it) and names the user; a wrong one counts,
 * and the PENDING_SIGN_IN_FAILURES-th ends it.
 */
export async function completeSignInWithCode(
  ctx: ServiceContext,
  token: string,
  input: { code: string; origin?: RequestOrigin },
): Promise<CodeOutcome> {
  const pending = await findPendingSignIn(ctx, token);
  if (!pending) return { wrong: true, canRetry: false };
  if (!(await takeCode(ctx, pending, input.code, input.origin))) {
    // Whoever typed the code knows the password: the attempt belongs in the user's own log.
    const canRetry = await transaction(ctx.db, async (trx) => {
      await recordAudit(
        ctx,
        trx,
        { anonymous: true, origin: input.origin },
        {
          action: 'user.sign_in_failed',
          targetId: pending.userId,
          workspace: { userId: pending.userId, organizationId: null },
          details: { reason: 'wrong_code' },
        },
      );
      return repo.recordPendingFailure(trx, hashToken(token), PENDING_SIGN_IN_FAILURES);
    });
    return { wrong: true, canRetry };
  }
  if (!(await repo.takePendingSignIn(ctx.db, hashToken(token)))) return { wrong: true, canRetry: false };
  return { userId: pending.userId };
}

/** Ends a pending sign-in once a passkey has answered for it: true for the one request that does. */
export async function takePendingSignIn(ctx: ServiceContext, token: string): Promise<boolean> {
  return repo.takePendingSignIn(ctx.db, hashToken(token));
}
