import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { transaction } from '../../db/transaction.js';
import type { ApiKeysTable, Environment, KeyScope } from '../../db/schema.js';
import { ApiError, checkFields, notFound, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { parseCidr } from '../../lib/ip.js';
import { recordAudit, withAudit, type AuditAction, type AuditEntry, type RequestOrigin } from '../audit/index.js';
import { hashPassword } from '../../lib/passwords.js';
import { queueEmailVerification, requireVerifiedEmail } from './account-tokens.js';
import * as repo from './accounts.repository.js';
import * as invites from './invites.repository.js';
import { displayPrefix, generateKeyValue, hashKeyValue } from './key-format.js';
import { administers, GIVEN_ROLES, isGivenRole, isPermission, PERMISSIONS, type Permission } from './permissions.js';
import { isPlan, type Plan } from './plans.js';

import { isOperator, type AccountActor, type Actor } from './actor.js';
import { normalizeEmail, requireOrganization } from './organization-access.js';

/**
 * Account administration. The operator (the command line) may administer every account; a
 * signed-in user administers their own keys and those of the organizations they own or admin.
 */

function requirePlan(plan: string): Plan {
  if (!isPlan(plan)) throw validationError('plan', `plan must be free, pro or enterprise, got "${plan}"`);
  return plan;
}

async function requireUser(db: Db, email: string) {
  const user = await repo.findUserByEmail(db, normalizeEmail(email));
  if (!user) throw notFound(`User ${email}`);
  return user;
}

/** The one password rule, for new accounts and changed passwords alike. */
export function requireNewPassword(password: string, field = 'password'): void {
  if (password.length < 8) throw validationError(field, 'password must be at least 8 characters');
  // scrypt's cost grows with the input; nobody types more than this.
  if (password.length > 1024) throw validationError(field, 'password must be at most 1024 characters');
}

/**
 * A new account's email (an address no account has) and password, every refusal at once
 * (checkFields); the email as stored. Writes nothing: a form with problems of its own (a
 * password's confirmation) asks it too, to show the service's beside them.
 */
export function checkNewAccount(ctx: ServiceContext, input: { email: string; password: string }) {
  return checkFields({
    email: async () => {
      const email = normalizeEmail(input.email);
      if (await repo.findUserByEmail(ctx.db, email)) throw validationError('email', `a user with email ${email} already exists`);
      return email;
    },
    password: () => requireNewPassword(input.password),
  });
}

/**
 * The operator creates accounts (the command line, and sign-up and first-run setup, which
 * decide for themselves who may). `owner` marks the instance owner; the database allows one.
 * An account made by its own user (`selfMade`: sign-up, first-run setup) is audited as theirs,
 * from their request.
 */
export async function createUser(
  ctx: ServiceContext,
  actor: AccountActor,
  input: {
    email: string;
    password: string;
    plan: string;
    owner?: boolean;
    verifyEmail?: boolean;
    selfMade?: { via: 'signup' | 'setup'; origin?: RequestOrigin };
  },
) {
  requireOperator(actor);
  const { db, clock } = ctx;
  const { account, plan } = await checkFields({ account: () => checkNewAccount(ctx, input), plan: () => requirePlan(input.plan) });
  const { email } = account;
  const now = isoNow(clock);
  const user = { id: newId('usr'), email, password_hash: await hashPassword(input.password), plan, created_at: now, updated_at: now };
  // Sign-up's address is unproven until its verification link is followed; others' are the operator's word.
  await transaction(db, async (trx) => {
    if (!(await repo.insertUser(trx, { ...user, is_owner: input.owner ? 1 : 0, email_verified_at: input.verifyEmail ? null : now })))
      throw validationError('email', `a user with email ${email} already exists`);
    if (input.verifyEmail) await queueEmailVerification(trx, ctx, user);
    const { selfMade } = input;
    const by = selfMade ? { userId: user.id, email, organizationId: null, environment: 'live' as const, origin: selfMade.origin } : actor;
    await recordAudit(ctx, trx, by, {
      action: 'user.created',
      targetId: user.id,
      workspace: ownSpace(user.id),
      details: selfMade ? { plan, via: selfMade.via } : { plan },
    });
  });
  return { id: user.id, email, plan, created_at: now };
}

/**
 * The operator names the owner and the plan; a signed-in user founds it themselves, and it
 * takes their plan (organizations are on Pro or Enterprise).
 */
function parseOrganizationName(given: string): string {
  const name = given.trim();
  if (name.length < 1 || name.length > 255) throw validationError('name', 'name must be 1-255 characters');
  return name;
}

export async function createOrganization(
  ctx: ServiceContext,
  actor: AccountActor,
  input: { name: string; ownerEmail?: string; plan?: string },
) {
  const { db, clock } = ctx;
  const name = parseOrganizationName(input.name);
  const owner = isOperator(actor) ? await requireUser(db, input.ownerEmail ?? '') : await actingUser(db, actor);
  const plan = isOperator(actor) ? requirePlan(input.plan ?? '') : owner.plan;
  if (plan === 'free') {
    throw validationError(
      'plan',
      isOperator(actor) ? 'organizations are on the pro or enterprise plan' : 'organizations need the Pro or Enterprise plan',
    );
  }
  const now = isoNow(clock);
  const org = { id: newId('org'), name, plan, created_at: now, updated_at: now };
  await transaction(db, async (trx) => {
    await repo.insertOrganization(trx, org);
    await repo.upsertMember(trx, { organization_id: org.id, user_id: owner.id, role: 'owner', created_at: now });
    await recordAudit(ctx, trx, actor, {
      action: 'organization.created',
      targetId: org.id,
      workspace: inOrganization(org.id),
      details: { plan },
    });
  });
  return { id: org.id, name, plan, owner: { id: owner.id, email: owner.email }, created_at: now };
}

/** A role an owner or admin may give: admin, editor or viewer. */
export function givenRole(role: string) {
  if (!isGivenRole(role)) throw validationError('role', `role must be ${GIVEN_ROLES.join(', ')}`);
  return role;
}

export async function addMember(ctx: ServiceContext, actor: AccountActor, input: { organizationId: string; email: string; role: string }) {
  const { db, clock } = ctx;
  const role = givenRole(input.role);
  const org = await requireOrganization(db, actor, input.organizationId, 'administer');
  const user = await requireUser(db, input.email);
  const existing = await repo.findMembership(db, org.id, user.id);
  if (existing?.role === 'owner') throw validationError('role', 'the owner keeps the owner role');
  const entry = {
    action: existing ? 'member.role_changed' : 'member.added',
    targetId: user.id,
    workspace: inOrganization(org.id),
    details: { role },
  } as const;
  await withAudit(ctx, actor, entry, (trx) =>
    repo.upsertMember(trx, { organization_id: org.id, user_id: user.id, role, created_at: isoNow(clock) }),
  );
  return { organization_id: org.id, user_id: user.id, email: user.email, role: input.role };
}

/** A comma-separated string (the command line) or a list (a form), trimmed, without empties. */
function listOf(value: string | readonly string[]): string[] {
  return (typeof value === 'string' ? value.split(',') : value).map((item) => item.trim()).filter(Boolean);
}

function parsePermissions(given: string | readonly string[] | undefined): Permission[] {
  if (given === undefined || (typeof given === 'string' && given.trim() === 'all')) return [...PERMISSIONS];
  const names = listOf(given);
  if (names.length === 0) throw validationError('permissions', 'give at least one permission, or all');
  for (const name of names) {
    if (!isPermission(name)) throw validationError('permissions', `unknown permission "${name}"; known: ${PERMISSIONS.join(', ')}`);
  }
  return [...new Set(names)] as Permission[];
}

function parseIpAllowlist(given: string | readonly string[] | undefined): string[] | null {
  const ranges = given === undefined ? [] : listOf(given);
  if (ranges.length === 0) return null;
  for (const range of ranges) {
    if (!parseCidr(range)) throw validationError('ip', `"${range}" is not an IP address or CIDR range`);
  }
  return ranges;
}

export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  permissions: Permission[];
  environment: Environment;
  scope: KeyScope;
  organization_id: string | null;
  ip_allowlist: string[] | null;
  enabled: boolean;
  created_at: string;
  last_used_at: string | null;
}

function toKeyView(row: ApiKeysTable): KeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    permissions: JSON.parse(row.permissions) as Permission[],
    environment: row.environment,
    scope: row.scope,
    organization_id: row.organization_id,
    ip_allowlist: row.ip_allowlist ? (JSON.parse(row.ip_allowlist) as string[]) : null,
    enabled: row.enabled === 1,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

export interface KeyInput {
  /** Whose key (operator only): a signed-in user's keys are their own. */
  email?: string;
  name: string;
  /** Names, given as a list or comma-separated; `all` or absent for every permission. */
  permissions?: string | readonly string[];
  test?: boolean;
  organizationId?: string;
  /** Addresses and CIDR ranges, given as a list or comma-separated; absent or empty for any. */
  ip?: string | readonly string[];
}

function parseKeyName(given: string): string {
  const name = given.trim();
  if (name.length < 1 || name.length > 255) throw validationError('name', 'name must be 1-255 characters');
  return name;
}

/**
 * A key's name, permissions and IP allow list, every refusal at once (checkFields). Writes
 * nothing: a form with problems of its own asks it too, to show the service's beside them.
 */
export function checkKeyFields(input: Pick<KeyInput, 'name' | 'permissions' | 'ip'>) {
  return checkFields({
    name: () => parseKeyName(input.name),
    permissions: () => parsePermissions(input.permissions),
    ipAllowlist: () => parseIpAllowlist(input.ip),
  });
}

export async function createKey(ctx: ServiceContext, actor: AccountActor, input: KeyInput) {
  const { db, clock } = ctx;
  const user = await keyOwner(db, actor, input.email);
  if (!isOperator(actor)) await requireVerifiedEmail(db, user.id);
  const { name, permissions, ipAllowlist } = await checkKeyFields(input);
  if (input.organizationId) {
    const membership = await repo.findMembership(db, input.organizationId, user.id);
    if (!membership) throw notFound(`Organization ${input.organizationId}`);
    if (!administers(membership.role)) {
      throw new ApiError('forbidden', 'only an owner or admin of the organization can create its keys');
    }
  }
  const environment: Environment = input.test ? 'test' : 'live';
  const value = generateKeyValue(environment);
  const now = isoNow(clock);
  const row: ApiKeysTable = {
    id: newId('key'),
    user_id: user.id,
    organization_id: input.organizationId ?? null,
    name,
    environment,
    scope: input.organizationId ? 'organization' : 'personal',
    permissions: JSON.stringify(permissions),
    ip_allowlist: ipAllowlist ? JSON.stringify(ipAllowlist) : null,
    enabled: 1,
    key_hash: hashKeyValue(value),
    prefix: displayPrefix(value),
    created_at: now,
    updated_at: now,
    last_used_at: null,
  };
  await withAudit(ctx, actor, keyEntry(row, 'key.created'), (trx) => repo.insertKey(trx, row));
  return { id: row.id, key: value, prefix: row.prefix, name, permissions, environment, scope: row.scope };
}

/** The operator lists every key of the user named by `email`. */
export async function listKeys(ctx: ServiceContext, actor: AccountActor, input: { email: string }): Promise<KeyView[]> {
  requireOperator(actor);
  const user = await requireUser(ctx.db, input.email);
  return (await repo.listKeysOfUser(ctx.db, user.id)).map(toKeyView);
}

/** A page of the keys a user administers (personal, and of the organizations they own or admin), oldest first. */
export async function listAdministeredKeys(ctx: ServiceContext, actor: Actor, page: { limit: number; offset: number }) {
  const { total, rows } = await repo.listKeysAdministeredBy(ctx.db, actor.userId, page);
  return { total, keys: rows.map(toKeyView) };
}

/** One key the actor administers; 404 otherwise. */
export async function getKey(ctx: ServiceContext, actor: AccountActor, input: { id: string }): Promise<KeyView> {
  return toKeyView(await requireKey(ctx.db, actor, input.id));
}

/**
 * 404 for a key the actor may not administer, as for one that does not exist: a user
 * administers their personal keys and every key of an organization they own or admin.
 */
async function requireKey(db: Db, actor: AccountActor, id: string) {
  const key = await repo.findKey(db, id);
  if (!key || !(await administersKey(db, actor, key))) throw notFound(`API key ${id}`);
  return key;
}

async function administersKey(db: Db, actor: AccountActor, key: ApiKeysTable): Promise<boolean> {
  if (isOperator(actor)) return true;
  if (key.organization_id === null) return key.user_id === actor.userId;
  const membership = await repo.findMembership(db, key.organization_id, actor.userId);
  return membership !== undefined && administers(membership.role);
}

export async function setKeyEnabled(ctx: ServiceContext, actor: AccountActor, input: { id: string; enabled: boolean }): Promise<KeyView> {
  const key = await requireKey(ctx.db, actor, input.id);
  const changes = { enabled: input.enabled ? 1 : 0, updated_at: isoNow(ctx.clock) };
  await withAudit(ctx, actor, keyEntry(key, input.enabled ? 'key.enabled' : 'key.disabled'), (trx) => repo.updateKey(trx, key.id, changes));
  return toKeyView({ ...key, ...changes });
}

/**
 * Changes what a key is called, may do and where from; its value, environment and scope stay.
 * Every instance drops the cached key before the next request (keysChanged after commit).
 */
export async function editKey(
  ctx: ServiceContext,
  actor: AccountActor,
  input: { id: string; name: string; permissions: string | readonly string[]; ip: string | readonly string[] },
): Promise<KeyView> {
  const key = await requireKey(ctx.db, actor, input.id);
  const { name, permissions, ipAllowlist } = await checkKeyFields(input);
  const changes = {
    name,
    permissions: JSON.stringify(permissions),
    ip_allowlist: ipAllowlist ? JSON.stringify(ipAllowlist) : null,
    updated_at: isoNow(ctx.clock),
  };
  await withAudit(ctx, actor, keyEntry(key, 'key.updated'), (trx) => repo.updateKey(trx, key.id, changes));
  return toKeyView({ ...key, ...changes });
}

/** Gives the key a new value; the old value stops working at once. */
export async function regenerateKey(ctx: ServiceContext, actor: AccountActor, input: { id: string }) {
  const key = await requireKey(ctx.db, actor, input.id);
  const value = generateKeyValue(key.environment);
  const changes = { key_hash: hashKeyValue(value), prefix: displayPrefix(value), updated_at: isoNow(ctx.clock) };
  await withAudit(ctx, actor, keyEntry(key, 'key.regenerated'), (trx) => repo.updateKey(trx, key.id, changes));
  return { ...toKeyView({ ...key, ...changes }), key: value };
}

export async function deleteKey(ctx: ServiceContext, actor: AccountActor, input: { id: string }) {
  const key = await requireKey(ctx.db, actor, input.id);
  await withAudit(ctx, actor, keyEntry(key, 'key.deleted'), (trx) => repo.deleteKeyRow(trx, key.id));
  return { id: key.id, deleted: true };
}

/** A user's own space: where entries about their account and personal keys belong. */
const ownSpace = (userId: string) => ({ userId, organizationId: null });
const inOrganization = (organizationId: string) => ({ userId: null, organizationId });

/** A key's entry, in the key's workspace (its organization, else its user's own) and environment. */
function keyEntry(key: Pick<ApiKeysTable, 'id' | 'user_id' | 'organization_id' | 'environment'>, action: AuditAction): AuditEntry {
  return {
    action,
    targetId: key.id,
    workspace: { userId: key.user_id, organizationId: key.organization_id },
    environment: key.environment,
  };
}

function requireOperator(actor: AccountActor): void {
  if (!isOperator(actor)) throw new ApiError('forbidden', 'only the operator can do this');
}

/** The user whose keys are meant: the one named (operator), or the acting user. */
async function keyOwner(db: Db, actor: AccountActor, email: string | undefined) {
  if (!isOperator(actor)) return actingUser(db, actor);
  if (email === undefined) throw validationError('email', 'email is required');
  return requireUser(db, email);
}

async function actingUser(db: Db, actor: Actor) {
  const user = await repo.findUserById(db, actor.userId);
  if (!user) throw notFound('User');
  return user;
}

/** The organizations a user belongs to, with their role in each. */
export async function listOrganizations(ctx: ServiceContext, actor: Actor) {
  return repo.listMembershipsOfUser(ctx.db, actor.userId);
}

/** An organization and its members with their roles, for any of its members. */
export async function getOrganization(ctx: ServiceContext, actor: AccountActor, input: { organizationId: string }) {
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'read');
  const members = await repo.listMembers(ctx.db, org.id);
  const role = isOperator(actor) ? null : (members.find((m) => m.user_id === actor.userId)?.role ?? null);
  return { id: org.id, name: org.name, plan: org.plan, created_at: org.created_at, role, members };
}

/** Owners and admins rename the organization. */
export async function renameOrganization(ctx: ServiceContext, actor: AccountActor, input: { organizationId: string; name: string }) {
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'administer');
  const name = parseOrganizationName(input.name);
  await withAudit(
    ctx,
    actor,
    { action: 'organization.renamed', targetId: org.id, workspace: inOrganization(org.id), details: { name } },
    (trx) => repo.updateOrganization(trx, org.id, { name, updated_at: isoNow(ctx.clock) }),
  );
  return { id: org.id, name };
}

/**
 * The owner hands the organization to another member, who becomes its owner; the previous
 * owner stays as an admin. One transaction, so the organization never has two owners or none.
 */
export async function transferOrganization(ctx: ServiceContext, actor: AccountActor, input: { organizationId: string; userId: string }) {
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'administer');
  const members = await repo.listMembers(ctx.db, org.id);
  const owner = members.find((member) => member.role === 'owner');
  if (!isOperator(actor) && owner?.user_id !== actor.userId) {
    throw new ApiError('forbidden', 'only the owner can hand over the organization');
  }
  const next = members.find((member) => member.user_id === input.userId);
  if (!next || next.role === 'owner') throw validationError('user_id', 'choose another member of the organization');
  await transaction(ctx.db, async (trx) => {
    if (owner) await repo.updateMemberRole(trx, org.id, owner.user_id, 'admin');
    await repo.updateMemberRole(trx, org.id, next.user_id, 'owner');
    await recordAudit(ctx, trx, actor, { action: 'organization.transferred', targetId: next.user_id, workspace: inOrganization(org.id) });
  });
  return { organization_id: org.id, owner: { id: next.user_id, email: next.email } };
}

/** Owners and admins change other members' roles; the owner keeps the owner role. */
export async function changeMemberRole(
  ctx: ServiceContext,
  actor: AccountActor,
  input: { organizationId: string; userId: string; role: string },
) {
  const role = givenRole(input.role);
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'administer');
  const membership = await repo.findMembership(ctx.db, org.id, input.userId);
  if (!membership) throw notFound('Member');
  if (membership.role === 'owner') throw validationError('role', 'the owner keeps the owner role');
  const details = { role, previous_role: membership.role };
  await transaction(ctx.db, async (trx) => {
    await repo.updateMemberRole(trx, org.id, input.userId, role);
    if (!administers(role))
      await dropAdministration(ctx, trx, actor, { organizationId: org.id, userId: input.userId, reason: 'role_changed' });
    await recordAudit(ctx, trx, actor, {
      action: 'member.role_changed',
      targetId: input.userId,
      workspace: inOrganization(org.id),
      details,
    });
  });
  return { organization_id: org.id, user_id: input.userId, role };
}

/**
 * What a member loses with the right to administer (removed, or made editor or viewer): their
 * keys for the organization stop working (they acted for it through the membership, and an
 * editor or viewer holds none), each a `key.disabled` entry of the change's transaction, and
 * the invitations they sent stop opening it.
 */
async function dropAdministration(
  ctx: ServiceContext,
  trx: Db,
  actor: AccountActor,
  change: { organizationId: string; userId: string; reason: 'member_removed' | 'role_changed' },
) {
  const now = isoNow(ctx.clock);
  for (const key of await repo.disableKeysOfMember(trx, change.organizationId, change.userId, now)) {
    await recordAudit(ctx, trx, actor, { ...keyEntry(key, 'key.disabled'), details: { reason: change.reason } });
  }
  await invites.revokeInvitesSentBy(trx, change.organizationId, change.userId, now);
}

/**
 * Owners and admins remove members (the owner stays). The member's keys for the organization
 * are disabled with it, in one transaction: they acted for the organization through the
 * membership, and must not outlive it.
 */
export async function removeMember(ctx: ServiceContext, actor: AccountActor, input: { organizationId: string; userId: string }) {
  const org = await requireOrganization(ctx.db, actor, input.organizationId, 'administer');
  const membership = await repo.findMembership(ctx.db, org.id, input.userId);
  if (!membership) throw notFound('Member');
  if (membership.role === 'owner') throw validationError('user_id', 'the owner cannot be removed');
  await transaction(ctx.db, async (trx) => {
    await repo.deleteMember(trx, org.id, input.userId);
    await dropAdministration(ctx, trx, actor, { organizationId: org.id, userId: input.userId, reason: 'member_removed' });
    await recordAudit(ctx, trx, actor, { action: 'member.removed', targetId: input.userId, workspace: inOrganization(org.id) });
  });
  return { organization_id: org.id, user_id: input.userId, removed: true };
}

/**
 * The account that owns a row, its organization or else its user, as an actor on the row's
 * environment with `permissions` only, under that account's plan: how a report the owner shared
 * publicly (features/shares) is read, with the owner's history and nothing else. Undefined when
 * the account is gone.
 */
export async function actorOfOwner(
  ctx: ServiceContext,
  row: { environment: Environment; owner_id: string; organization_id: string | null },
  permissions: readonly Permission[],
): Promise<Actor | undefined> {
  const [user, organization] = await Promise.all([
    repo.findUserById(ctx.db, row.owner_id),
    row.organization_id === null ? undefined : repo.findOrganization(ctx.db, row.organization_id),
  ]);
  if (!user || (row.organization_id !== null && !organization)) return undefined;
  return {
    userId: user.id,
    email: user.email,
    organizationId: organization?.id ?? null,
    organizationName: organization?.name ?? null,
    environment: row.environment,
    permissions,
    plan: organization?.plan ?? user.plan,
  };
}
