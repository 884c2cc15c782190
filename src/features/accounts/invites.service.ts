import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { lockAccount } from '../../db/locks.js';
import type { Selectable } from 'kysely';
import type { OrganizationInvitesTable } from '../../db/schema.js';
import { transaction } from '../../db/transaction.js';
import { checkFields, forbidden, notFound, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';
import { recordAudit, type RequestOrigin } from '../audit/index.js';
import { queueMail } from '../mail/index.js';
import { requireVerifiedEmail } from './account-tokens.js';
import { findUserMailState, markEmailVerified } from './account-tokens.repository.js';
import * as accountsRepo from './accounts.repository.js';
import { givenRole, requireNewPassword } from './accounts.service.js';
import type { Actor } from './actor.js';
import * as repo from './invites.repository.js';
import { normalizeEmail, requireOrganization } from './organization-access.js';
import { hashToken, newSecretToken } from './secret-tokens.js';

/**
 * Invites: an organization's owner or an admin invites an address with a role; the mailed link
 * lets whoever reads that address join, signing in to their account or creating it (even while
 * sign-up is closed: the invite is the instance's word that this address may have one). The
 * link's token is 32 random bytes, stored as its SHA-256 only. An invite is open for seven
 * days, until accepted or revoked; inviting the same address again replaces it.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
export const INVITE_LIFETIME_MS = 7 * DAY_MS;
/** Ended invites are kept this long, so that an old link says why it no longer works. */
const KEPT_AFTER_END_MS = 30 * DAY_MS;

/** The page an invite's link opens (the dashboard's). */
export const INVITE_PATH = '/dashboard/invites/accept';

type InviteRow = Selectable<OrganizationInvitesTable> & { organization_name: string; inviter_email: string | null };

export interface InviteView {
  id: string;
  organization_id: string;
  organization_name: string;
  email: string;
  role: OrganizationInvitesTable['role'];
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

function toInviteView(row: InviteRow): InviteView {
  return {
    id: row.id,
    organization_id: row.organization_id,
    organization_name: row.organization_name,
    email: row.email,
    role: row.role,
    invited_by: row.inviter_email,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}

/** An invite's entries belong to its organization's log. */
const inOrganization = (organizationId: string) => ({ userId: null, organizationId });

export async function inviteMember(ctx: ServiceContext, actor: Actor, input: { organizationId: string; email: string; role: string }) {
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'administer');
  // Mail goes out in the instance's name: only from an address proven to be the sender's.
  await requireVerifiedEmail(ctx.db, actor.userId);
  const { email, role } = await checkFields({
    email: async () => {
      const email = normalizeEmail(input.email);
      const user = await accountsRepo.findUserByEmail(ctx.db, email);
      if (user && (await accountsRepo.findMembership(ctx.db, org.id, user.id))) {
        throw validationError('email', `${email} is already a member of ${org.name}`);
      }
      return email;
    },
    role: () => givenRole(input.role),
  });
  const token = newSecretToken();
  const now = ctx.clock.now();
  const row = {
    id: newId('inv'),
    organization_id: org.id,
    email,
    role,
    token_hash: hashToken(token),
    invited_by: actor.userId,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITE_LIFETIME_MS).toISOString(),
  };
  await transaction(ctx.db, async (trx) => {
    // Invites of one organization one at a time: a form sent twice leaves one open invite.
    await lockAccount(trx, { userId: actor.userId, organizationId: org.id });
    await repo.deleteInvitesEndedBefore(trx, new Date(now.getTime() - KEPT_AFTER_END_MS).toISOString());
    await repo.revokeInvites(trx, { organizationId: org.id, email }, row.created_at);
    await repo.insertInvite(trx, row);
    await queueMail(trx, ctx, {
      to: email,
      template: 'invite',
      data: { link: `${ctx.config.publicBaseUrl}${INVITE_PATH}?token=${token}`, organization: org.name, role, inviter: actor.email },
    });
    await recordAudit(ctx, trx, actor, {
      action: 'member.invited',
      targetId: row.id,
      workspace: inOrganization(org.id),
      details: { email, role },
    });
  });
  return toInviteView({ ...row, accepted_at: null, revoked_at: null, organization_name: org.name, inviter_email: actor.email });
}

/** The organization's open invites, newest first (owners and admins). */
export async function listInvites(ctx: ServiceContext, actor: Actor, input: { organizationId: string }): Promise<InviteView[]> {
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'administer');
  return (await repo.listPendingInvites(ctx.db, org.id, isoNow(ctx.clock))).map(toInviteView);
}

/** Revokes an open invite: its link stops working at once. 404 for one that is not open. */
export async function revokeInvite(ctx: ServiceContext, actor: Actor, input: { organizationId: string; inviteId: string }) {
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'administer');
  await transaction(ctx.db, async (trx) => {
    const result = await repo.revokeInvites(trx, { organizationId: org.id, id: input.inviteId }, isoNow(ctx.clock));
    if (Number(result.numUpdatedRows) === 0) throw notFound(`Invite ${input.inviteId}`);
    await recordAudit(ctx, trx, actor, { action: 'member.invite_revoked', targetId: input.inviteId, workspace: inOrganization(org.id) });
  });
}

/** What following an invite's link finds: an open invite, or why it is not. */
export type InviteState = 'valid' | 'accepted' | 'revoked' | 'expired' | 'unknown';

function stateOf(ctx: Pick<ServiceContext, 'clock'>, row: InviteRow | undefined): InviteState {
  if (!row) return 'unknown';
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return ctx.clock.now().getTime() >= Date.parse(row.expires_at) ? 'expired' : 'valid';
}

// Tokens are 43 characters; anything much longer is not one, and is not worth hashing.
const findByToken = (db: Db, token: string) =>
  token.length > 0 && token.length <= 128 ? repo.findInviteByTokenHash(db, hashToken(token)) : Promise.resolve(undefined);

/** The invite a link opens, and whether an account has its address (the page asks to sign in, or to create one). */
export async function openInvite(
  ctx: ServiceContext,
  token: string,
): Promise<{ state: Exclude<InviteState, 'valid'> } | { state: 'valid'; invite: InviteView; hasAccount: boolean }> {
  const row = await findByToken(ctx.db, token);
  const state = stateOf(ctx, row);
  if (state !== 'valid' || !row) return { state: state === 'valid' ? 'unknown' : state };
  const account = await accountsRepo.findUserByEmail(ctx.db, row.email);
  return { state, invite: toInviteView(row), hasAccount: account !== undefined };
}

/**
 * Accepts an invite: `user`, signed in with the invite's address, joins; with no one signed in
 * and no account at the address, `password` creates that account (its address verified: the
 * link proves it). The membership, the spent invite and their entries commit together. A
 * signed-in user of another address is refused (403), as is a password for an address that
 * has an account (it must sign in).
 */
export async function acceptInvite(
  ctx: ServiceContext,
  input: { token: string; user?: { userId: string; email: string }; password?: string; origin?: RequestOrigin },
): Promise<{ state: InviteState; userId?: string; organizationId?: string }> {
  if (input.user === undefined) requireNewPassword(input.password ?? '');
  // The link first: scrypt holds a thread of the pool for tens of milliseconds, spent only for
  // a link that works; hashed before the transaction, which checks the link again.
  const opened = await findByToken(ctx.db, input.token);
  const openedState = stateOf(ctx, opened);
  if (openedState !== 'valid' || !opened) return { state: openedState };
  const passwordHash = input.user === undefined ? await hashPassword(input.password!) : undefined;
  return transaction(ctx.db, async (trx) => {
    // The link sent twice at once: the second waits here, then finds it spent.
    await lockAccount(trx, { userId: opened.invited_by, organizationId: opened.organization_id });
    const row = await findByToken(trx, input.token);
    const state = stateOf(ctx, row);
    if (state !== 'valid' || !row) return { state };
    const now = isoNow(ctx.clock);
    const user = input.user ?? (await createInvitedAccount(ctx, trx, row, passwordHash!, input.origin));
    if (user.email !== row.email) {
      throw forbidden(`This invitation is for ${row.email}, and you are signed in as ${user.email}: sign out and open the link again`);
    }
    if (!(await repo.markAccepted(trx, row.id, now))) return { state: 'accepted' };
    await join(ctx, trx, row, user, input.origin);
    return { state: 'valid', userId: user.userId, organizationId: row.organization_id };
  });
}

/** The invites open for the user's address, once it is verified: the Organizations page offers them. */
export async function invitesForUser(ctx: ServiceContext, user: { userId: string }): Promise<InviteView[]> {
  const account = await findUserMailState(ctx.db, user.userId);
  if (!account || account.email_verified_at === null) return [];
  return (await repo.listPendingInvitesTo(ctx.db, account.email, isoNow(ctx.clock))).map(toInviteView);
}

/** Accepts one of invitesForUser's invites by id, without its link: the verified address is the proof. */
export async function acceptInviteOfUser(
  ctx: ServiceContext,
  user: { userId: string; email: string; origin?: RequestOrigin },
  input: { inviteId: string },
) {
  const open = await invitesForUser(ctx, user);
  const invite = open.find((candidate) => candidate.id === input.inviteId);
  if (!invite) throw notFound(`Invite ${input.inviteId}`);
  await transaction(ctx.db, async (trx) => {
    if (!(await repo.markAccepted(trx, invite.id, isoNow(ctx.clock)))) throw notFound(`Invite ${input.inviteId}`);
    await join(ctx, trx, invite, user, user.origin);
  });
  return { organizationId: invite.organization_id };
}

const accountExists = (email: string) => forbidden(`An account already uses ${email}: sign in to it, then open the link again`);

/**
 * The invited account, created in the accepting transaction: the invite's address, verified,
 * on the plan sign-up gives (SIGNUP_PLAN). Refused when an account has the address already.
 */
async function createInvitedAccount(ctx: ServiceContext, trx: Db, row: InviteRow, passwordHash: string, origin?: RequestOrigin) {
  if (await accountsRepo.findUserByEmail(trx, row.email)) throw accountExists(row.email);
  const now = isoNow(ctx.clock);
  const user = {
    id: newId('usr'),
    email: row.email,
    password_hash: passwordHash,
    plan: ctx.config.signupPlan,
    created_at: now,
    updated_at: now,
  };
  if (!(await accountsRepo.insertUser(trx, { ...user, is_owner: 0, email_verified_at: now }))) throw accountExists(row.email);
  const self = { userId: user.id, email: user.email, organizationId: null, environment: 'live' as const, origin };
  await recordAudit(ctx, trx, self, { action: 'user.created', targetId: user.id, details: { plan: user.plan, via: 'invite' } });
  return { userId: user.id, email: user.email };
}

/**
 * The user joins with the invite's role (a member already keeps theirs), and their address counts as
 * verified: the invite was mailed to it.
 */
async function join(
  ctx: ServiceContext,
  trx: Db,
  invite: Pick<InviteRow, 'id' | 'organization_id' | 'role'>,
  user: { userId: string; email: string },
  origin?: RequestOrigin,
) {
  const now = isoNow(ctx.clock);
  const self = { userId: user.userId, email: user.email, organizationId: null, environment: 'live' as const, origin };
  const account = await findUserMailState(trx, user.userId);
  if (account?.email_verified_at === null) {
    await markEmailVerified(trx, user.userId, now);
    await recordAudit(ctx, trx, self, { action: 'user.email_verified', targetId: user.userId, details: { via: 'invite' } });
  }
  // Someone who became a member since the invite was sent keeps the role they have: a stale
  // invite must not demote an admin (whose keys demotion would have to disable) or promote anyone.
  if (await accountsRepo.findMembership(trx, invite.organization_id, user.userId)) return;
  await accountsRepo.upsertMember(trx, {
    organization_id: invite.organization_id,
    user_id: user.userId,
    role: invite.role,
    created_at: now,
  });
  await recordAudit(
    ctx,
    trx,
    { ...self, organizationId: invite.organization_id },
    {
      action: 'member.added',
      targetId: user.userId,
      workspace: inOrganization(invite.organization_id),
      details: { role: invite.role, invite: invite.id },
    },
  );
}
