import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import type { Selectable } from 'kysely';
import type { UsersTable } from '../../db/schema.js';
import { transaction } from '../../db/transaction.js';
import { ApiError, notFound, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import * as repo from './accounts.repository.js';
import { isOperator, type AccountActor } from './actor.js';
import { isPlan, type Plan } from './plans.js';
import { deleteSessionsOfUser } from './sessions.repository.js';
import * as settings from './settings.repository.js';
import { recordAudit, withAudit } from '../audit/index.js';
import { secondFactorsOf } from './two-factor.repository.js';

/**
 * The instance administration: every user and organization, and the instance's settings. Only
 * the instance owner (`users.is_owner`, the account made by the first-run setup) and the
 * operator (the command line) may use it; to anyone else it answers 404, as if it did not exist.
 */

/** The operator, or the enabled instance owner; anyone else gets the 404 of a page that does not exist. */
async function requireInstanceAdmin(db: Db, actor: AccountActor): Promise<void> {
  if (isOperator(actor)) return;
  const user = await repo.findUserById(db, actor.userId);
  if (!user || user.is_owner !== 1 || user.disabled === 1) throw notFound('Page');
}

export interface AdminUserView {
  id: string;
  email: string;
  plan: Plan;
  created_at: string;
  last_sign_in_at: string | null;
  owner: boolean;
  disabled: boolean;
  /** Whether they have a second factor: an authenticator app or a passkey. */
  two_factor: boolean;
}

type AdminUserRow = Pick<Selectable<UsersTable>, 'id' | 'email' | 'plan' | 'created_at' | 'last_sign_in_at' | 'is_owner' | 'disabled'> & {
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  two_factor: unknown;
};

/** Field by field: a whole users row also holds the password hash. */
function toAdminUserView(row: AdminUserRow): AdminUserView {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan,
    created_at: row.created_at,
    last_sign_in_at: row.last_sign_in_at,
    owner: row.is_owner === 1,
    disabled: row.disabled === 1,
    two_factor: Boolean(row.two_factor),
  };
}

/** One user, by id. */
export async function getAnyUser(ctx: ServiceContext, actor: AccountActor, input: { userId: string }): Promise<AdminUserView> {
  await requireInstanceAdmin(ctx.db, actor);
  const user = await targetUser(ctx.db, input);
  const { totp, passkeys } = await secondFactorsOf(ctx.db, user.id);
  return toAdminUserView({ ...user, two_factor: totp || passkeys > 0 });
}

/** A page of every user, oldest first; `search` keeps those whose email contains it. */
export async function listAllUsers(
  ctx: ServiceContext,
  actor: AccountActor,
  input: { search?: string; limit: number; offset: number },
): Promise<{ total: number; users: AdminUserView[] }> {
  await requireInstanceAdmin(ctx.db, actor);
  const { total, rows } = await repo.listUsersPage(ctx.db, (input.search ?? '').trim(), input);
  return { total, users: rows.map(toAdminUserView) };
}

/** A page of every organization, oldest first, with its owner's email and member count. */
export async function listAllOrganizations(ctx: ServiceContext, actor: AccountActor, input: { limit: number; offset: number }) {
  await requireInstanceAdmin(ctx.db, actor);
  return repo.listOrganizationsPage(ctx.db, input);
}

/** The instance at a glance: users (and how many are disabled), organizations, whether sign-up is open and two factors required. */
export async function instanceSummary(ctx: ServiceContext, actor: AccountActor) {
  await requireInstanceAdmin(ctx.db, actor);
  const [users, organizations, signupOpen, twoFactorRequired] = await Promise.all([
    repo.countUsers(ctx.db),
    repo.countOrganizations(ctx.db),
    isSignupOpen(ctx),
    isTwoFactorRequired(ctx),
  ]);
  return { users: users.total, disabledUsers: users.disabled, organizations, signupOpen, twoFactorRequired };
}

/** The user meant by id (the dashboard) or email (the command line). */
async function targetUser(db: Db, input: { userId?: string; email?: string }) {
  const user =
    input.userId !== undefined
      ? await repo.findUserById(db, input.userId)
      : await repo.findUserByEmail(db, (input.email ?? '').trim().toLowerCase());
  if (!user) throw notFound(`User ${input.userId ?? input.email}`);
  return user;
}

/**
 * Disables or enables a user. A disabled user cannot sign in, their sessions end in the same
 * transaction, and their API keys are refused (key-auth.ts; the write announces the change to
 * the key caches of every process). The instance owner cannot be disabled: the instance would
 * be left without anyone to enable them again in the dashboard.
 */
export async function setUserDisabled(
  ctx: ServiceContext,
  actor: AccountActor,
  input: { userId?: string; email?: string; disabled: boolean },
) {
  await requireInstanceAdmin(ctx.db, actor);
  const user = await targetUser(ctx.db, input);
  if (input.disabled && user.is_owner === 1) throw new ApiError('forbidden', 'the instance owner cannot be disabled');
  const ended = await transaction(ctx.db, async (trx) => {
    await repo.updateUserDisabled(trx, user.id, input.disabled, isoNow(ctx.clock));
    const entry = {
      action: input.disabled ? 'user.disabled' : 'user.enabled',
      targetId: user.id,
      workspace: { userId: user.id, organizationId: null },
    } as const;
    await recordAudit(ctx, trx, actor, entry);
    if (!input.disabled) return 0;
    const [result] = await deleteSessionsOfUser(trx, user.id);
    return Number(result?.numDeletedRows ?? 0);
  });
  return { id: user.id, email: user.email, disabled: input.disabled, sessions_ended: ended };
}

/** Moves a user to another plan; it governs their personal keys from the next request on. */
export async function setUserPlan(ctx: ServiceContext, actor: AccountActor, input: { userId?: string; email?: string; plan: string }) {
  await requireInstanceAdmin(ctx.db, actor);
  if (!isPlan(input.plan)) throw validationError('plan', `plan must be free, pro or enterprise, got "${input.plan}"`);
  const user = await targetUser(ctx.db, input);
  const entry = {
    action: 'user.plan_changed',
    targetId: user.id,
    workspace: { userId: user.id, organizationId: null },
    details: { plan: input.plan },
  } as const;
  await withAudit(ctx, actor, entry, (trx) => repo.updateUserPlan(trx, user.id, input.plan as Plan, isoNow(ctx.clock)));
  return { id: user.id, email: user.email, plan: input.plan };
}

const SIGNUP = 'signup';

/**
 * Whether anyone may create an account at /dashboard/signup: the owner's choice once made
 * (the `settings` table), else SIGNUP from the environment. Read from the database every time,
 * without a cache: a one-row primary-key lookup, made only by the sign-in and sign-up pages, so
 * a change applies to the very next request on every instance.
 */
export async function isSignupOpen(ctx: ServiceContext): Promise<boolean> {
  const stored = await settings.findSetting(ctx.db, SIGNUP);
  return (stored ?? ctx.config.signup) === 'open';
}

export async function setSignupOpen(ctx: ServiceContext, actor: AccountActor, input: { open: boolean }) {
  await requireInstanceAdmin(ctx.db, actor);
  const signup = input.open ? 'open' : 'closed';
  // An instance setting: its entry belongs to no workspace, the owner's instance-wide log shows it.
  await withAudit(
    ctx,
    actor,
    { action: 'instance.signup_changed', workspace: { userId: null, organizationId: null }, details: { signup } },
    (trx) => settings.upsertSetting(trx, SIGNUP, signup, isoNow(ctx.clock)),
  );
  return { signup: input.open ? 'open' : 'closed' };
}

const TWO_FACTOR = 'two_factor';
/** An instance setting's entry belongs to no workspace: the owner's instance-wide log shows it. */
const INSTANCE = { userId: null, organizationId: null };

/** Whether the owner requires a second factor of every user (the `settings` table; off until they do). */
export async function isTwoFactorRequired(ctx: ServiceContext): Promise<boolean> {
  return (await settings.findSetting(ctx.db, TWO_FACTOR)) === 'required';
}

/**
 * Requires (or stops requiring) two factors of everyone. The owner turns it on only with a
 * second factor of their own, so the instance cannot lock them out of this very setting.
 */
export async function setTwoFactorRequired(ctx: ServiceContext, actor: AccountActor, input: { required: boolean }) {
  await requireInstanceAdmin(ctx.db, actor);
  if (input.required && !isOperator(actor)) {
    const { totp, passkeys } = await secondFactorsOf(ctx.db, actor.userId);
    if (!totp && passkeys === 0) {
      throw new ApiError('forbidden', 'set up an authenticator app or a passkey for your own account before requiring them of everyone');
    }
  }
  const value = input.required ? 'required' : 'optional';
  await transaction(ctx.db, async (trx) => {
    await settings.upsertSetting(trx, TWO_FACTOR, value, isoNow(ctx.clock));
    await recordAudit(ctx, trx, actor, {
      action: 'instance.two_factor_required',
      workspace: INSTANCE,
      details: { required: input.required },
    });
  });
  return { two_factor: value };
}
