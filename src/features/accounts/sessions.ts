import { parseCookie as parseCookieHeader } from 'cookie';
import type { ServiceContext } from '../../context.js';
import type { ReadPermission } from '../../db/schema.js';
import { ApiError, checkFields, InsufficientStorage, validationError } from '../../errors.js';
import { transaction } from '../../db/transaction.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { canonicalTimeZone } from '../../lib/zoned-time.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { createUser, requireNewPassword } from './accounts.service.js';
import { isOperator, OPERATOR, type AccountActor, type Workspace } from './actor.js';
import type { Plan } from './plans.js';
import { recordAudit, withAudit, type AuditPerson, type RequestOrigin } from '../audit/index.js';
import * as accountsRepo from './accounts.repository.js';
import { hashToken, newSecretToken } from './secret-tokens.js';
import * as repo from './sessions.repository.js';

/**
 * Dashboard sessions. A session ends at the first of: sign-out, IDLE_MS without a request,
 * ABSOLUTE_MS after sign-in, a password change (every other session of the user), or the user
 * being disabled. Every signed-in request reads its session from the database, so each of
 * those takes effect at once on every instance.
 */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
/** last_seen_at moves at most this often: idle expiry needs no write per request. */
const TOUCH_INTERVAL_MS = 60_000;

export const SESSION_COOKIE = 'tagsvc_session';

/** The account behind a dashboard request. */
export interface SignedInUser {
  sessionId: string;
  userId: string;
  email: string;
  plan: Plan;
  isOwner: boolean;
  /** The IANA zone the user chose for the dashboard (setTimeZone); null: their browser's. */
  timeZone: string | null;
  /** The owner requires two factors and this user has no second one yet: the dashboard sends them to set one up. */
  mustEnrol: boolean;
  /** What the dashboard acts for (set by the dashboard from its cookie); absent: the user, live. */
  workspace?: Workspace;
  /** The request the user acts through (set by the dashboard), for the audit log. */
  origin?: RequestOrigin;
}

/** The session token of a Cookie header, or undefined. */
export function sessionTokenFromCookies(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  return parseCookieHeader(cookieHeader)[SESSION_COOKIE] || undefined;
}

/** The user acting on their own account, for the audit log: the entry belongs to their own space. */
function ownAccount(user: { userId: string; email: string; origin?: RequestOrigin }): AuditPerson {
  return { userId: user.userId, email: user.email, organizationId: null, environment: 'live', origin: user.origin };
}

/**
 * A new session with a new random token (sign-in rotates it: an old token never carries over),
 * audited as user.signed_in from `origin`, the sign-in's request.
 */
export async function startSession(
  ctx: ServiceContext,
  userId: string,
  origin?: RequestOrigin,
): Promise<{ token: string; expiresAt: Date }> {
  const { db, clock } = ctx;
  const token = newSecretToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  const at = now.toISOString();
  await repo.deleteSessionsExpiredBefore(db, at);
  const user = await accountsRepo.findUserById(db, userId);
  await transaction(db, async (trx) => {
    await repo.insertSession(trx, {
      id: newId('ses'),
      token_hash: hashToken(token),
      user_id: userId,
      created_at: at,
      last_seen_at: at,
      expires_at: expiresAt.toISOString(),
    });
    await repo.recordSignIn(trx, userId, at);
    await recordAudit(ctx, trx, ownAccount({ userId, email: user?.email ?? '', origin }), { action: 'user.signed_in', targetId: userId });
  });
  return { token, expiresAt };
}

/** The user signed in with `token`, or undefined when it is unknown, expired or the user disabled. */
export async function findSignedInUser(ctx: ServiceContext, token: string | undefined): Promise<SignedInUser | undefined> {
  const { db, clock } = ctx;
  // Tokens are 43 characters; anything much longer is not one, and is not worth hashing.
  if (!token || token.length > 128) return undefined;
  const row = await repo.findSessionByTokenHash(db, hashToken(token));
  if (!row || row.disabled === 1) return undefined;
  const nowMs = clock.now().getTime();
  const lastSeenMs = Date.parse(row.last_seen_at);
  // Both writes ride on reads: a disk too full for them must not fail the page. An expired
  // session not deleted is still refused, and deleted next time; one not touched is touched next time.
  if (nowMs >= Date.parse(row.expires_at) || nowMs - lastSeenMs >= SESSION_IDLE_MS) {
    await repo.deleteSession(db, row.id).catch(unlessDiskFull);
    return undefined;
  }
  if (nowMs - lastSeenMs >= TOUCH_INTERVAL_MS) await repo.touchSession(db, row.id, isoNow(clock)).catch(unlessDiskFull);
  return {
    sessionId: row.id,
    userId: row.user_id,
    email: row.email,
    plan: row.plan,
    isOwner: row.is_owner === 1,
    timeZone: row.time_zone,
    mustEnrol: Boolean(row.must_enrol),
  };
}

/** Rethrows any failure but a full disk's. */
function unlessDiskFull(error: unknown): void {
  if (!(error instanceof InsufficientStorage)) throw error;
}

export async function endSession(ctx: ServiceContext, sessionId: string): Promise<void> {
  const { db } = ctx;
  await repo.deleteSession(db, sessionId);
}

/** The user signs out: their session ends, audited as user.signed_out. */
export async function signOut(ctx: ServiceContext, user: SignedInUser): Promise<void> {
  await withAudit(ctx, ownAccount(user), { action: 'user.signed_out', targetId: user.userId }, (trx) =>
    repo.deleteSession(trx, user.sessionId),
  );
}

let dummyHash: Promise<string> | undefined;

/**
 * The account `email` and `password` match, and whether it is disabled (said only to whoever
 * knows the password), or undefined. An unknown email costs the same scrypt as a wrong
 * password (against a dummy hash), so timing does not tell which.
 *
 * A refusal (no match, or a disabled account) is audited as user.sign_in_failed from `origin`:
 * in the account's own log when the address is a user's, else in the instance's alone, without
 * the address typed (it may be anything, a password typed in the wrong field included).
 */
export async function verifyCredentials(
  ctx: ServiceContext,
  { email, password }: { email: string; password: string },
  origin?: RequestOrigin,
): Promise<{ userId: string; disabled: boolean } | undefined> {
  const { db } = ctx;
  const user = await accountsRepo.findUserByEmail(db, email.trim().toLowerCase());
  dummyHash ??= hashPassword(newSecretToken());
  const matches = await verifyPassword(password, user?.password_hash ?? (await dummyHash));
  const refused = !user ? 'unknown_email' : !matches ? 'wrong_password' : user.disabled === 1 ? 'disabled' : undefined;
  if (refused) {
    const workspace = user ? { userId: user.id, organizationId: null } : undefined;
    // Nothing else is written: the entry is a change of its own.
    await recordAudit(
      ctx,
      db,
      { anonymous: true, origin },
      { action: 'user.sign_in_failed', targetId: user?.id, workspace, details: { reason: refused } },
    );
  }
  return user && matches ? { userId: user.id, disabled: user.disabled === 1 } : undefined;
}

/** Whether the instance has any account yet; until it has, the dashboard offers the first-run setup. */
export function hasAnyUser(ctx: ServiceContext): Promise<boolean> {
  return repo.hasAnyUser(ctx.db);
}

export const ALREADY_SET_UP = 'This instance is already set up; sign in instead';

/**
 * The first account: the instance owner, on the enterprise plan. Refused once any account
 * exists; of two concurrent first-run forms, the database's one-owner index lets one through.
 */
export async function createFirstAccount(ctx: ServiceContext, input: { email: string; password: string }, origin?: RequestOrigin) {
  const { db } = ctx;
  if (await repo.hasAnyUser(db)) throw new ApiError('forbidden', ALREADY_SET_UP);
  try {
    return await createUser(ctx, OPERATOR, { ...input, plan: 'enterprise', owner: true, selfMade: { via: 'setup', origin } });
  } catch (error) {
    // Whatever refused this one, another form set the instance up meanwhile: that is the answer.
    if (await repo.hasAnyUser(db)) throw new ApiError('forbidden', ALREADY_SET_UP);
    throw error;
  }
}

/** Self-service sign-up (while isSignupOpen) on the configured plan; a link to verify the address is mailed. */
export function signUp(ctx: ServiceContext, input: { email: string; password: string; plan: Plan }, origin?: RequestOrigin) {
  return createUser(ctx, OPERATOR, { ...input, verifyEmail: true, selfMade: { via: 'signup', origin } });
}

/**
 * A password change's current password (the user's) and new one, every refusal at once
 * (checkFields). Writes nothing: a form with problems of its own (the confirmation) asks it
 * too, to show the service's beside them.
 */
export function checkPasswordChange(ctx: ServiceContext, user: SignedInUser, input: { current: string; next: string }) {
  return checkFields({
    current: async () => {
      const row = await accountsRepo.findUserById(ctx.db, user.userId);
      if (!row || !(await verifyPassword(input.current, row.password_hash))) {
        throw validationError('current_password', 'The current password is not correct');
      }
    },
    next: () => requireNewPassword(input.next, 'new_password'),
  });
}

/** The signed-in user's own change: needs the current password; every other session of the user ends. */
export async function changePassword(ctx: ServiceContext, user: SignedInUser, input: { current: string; next: string }): Promise<void> {
  const { clock } = ctx;
  await checkPasswordChange(ctx, user, input);
  const passwordHash = await hashPassword(input.next);
  await withAudit(ctx, ownAccount(user), { action: 'user.password_changed', targetId: user.userId }, async (trx) => {
    await repo.updateUserPassword(trx, user.userId, passwordHash, isoNow(clock));
    await repo.deleteSessionsOfUser(trx, user.userId, user.sessionId);
  });
}

/**
 * The signed-in user's own time zone for the dashboard: an IANA name the runtime knows, saved as
 * the runtime spells it (`europe/berlin` → `Europe/Berlin`), or empty for the browser's own zone.
 * Another name → validation_error on `time_zone`. Returns the zone saved (null: the browser's).
 */
export async function setTimeZone(ctx: ServiceContext, user: SignedInUser, input: { time_zone: string }): Promise<string | null> {
  const { clock } = ctx;
  const given = input.time_zone.trim();
  const zone = given === '' ? null : canonicalTimeZone(given);
  if (zone === undefined) throw validationError('time_zone', 'Choose a time zone from the list, such as Europe/Berlin');
  await withAudit(ctx, ownAccount(user), { action: 'user.time_zone_changed', targetId: user.userId, details: { time_zone: zone } }, (trx) =>
    repo.updateUserTimeZone(trx, user.userId, zone, isoNow(clock)),
  );
  return zone;
}

/** An operator's reset (command line): sets the password and ends every session of the user. */
export async function setPassword(ctx: ServiceContext, actor: AccountActor, input: { email: string; password: string }) {
  if (!isOperator(actor)) throw new ApiError('forbidden', 'only the operator can do this');
  const { db, clock } = ctx;
  requireNewPassword(input.password);
  const user = await accountsRepo.findUserByEmail(db, input.email.trim().toLowerCase());
  if (!user) throw new ApiError('not_found', `User ${input.email} not found`);
  const passwordHash = await hashPassword(input.password);
  const entry = { action: 'user.password_set', targetId: user.id, workspace: { userId: user.id, organizationId: null } } as const;
  const [result] = await withAudit(ctx, actor, entry, async (trx) => {
    await repo.updateUserPassword(trx, user.id, passwordHash, isoNow(clock));
    return repo.deleteSessionsOfUser(trx, user.id);
  });
  return { id: user.id, email: user.email, sessions_ended: Number(result?.numDeletedRows ?? 0) };
}

export interface ReadableTag {
  read_permission: ReadPermission;
  owner_id: string;
  organization_id: string | null;
}

/**
 * Whether `viewer` may see a tag's page: public to anyone, private to its owner, organization
 * to the organization's members. The page answers everyone else as if the tag did not exist.
 */
export async function mayReadTag(ctx: ServiceContext, viewer: SignedInUser | undefined, tag: ReadableTag): Promise<boolean> {
  const { db } = ctx;
  if (tag.read_permission === 'public') return true;
  if (!viewer) return false;
  if (tag.read_permission === 'private') return tag.owner_id === viewer.userId;
  return tag.organization_id !== null && (await accountsRepo.findMembership(db, tag.organization_id, viewer.userId)) !== undefined;
}

/**
 * mayReadTag for the browser that sent `cookieHeader`. A public tag answers at once: its
 * pages never look up a session.
 */
export async function mayReadTagPage(ctx: ServiceContext, cookieHeader: string | undefined, tag: ReadableTag): Promise<boolean> {
  if (tag.read_permission === 'public') return true;
  return mayReadTag(ctx, await findSignedInUser(ctx, sessionTokenFromCookies(cookieHeader)), tag);
}
