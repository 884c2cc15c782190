import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { transaction } from '../../db/transaction.js';
import type { ApiKeysTable, Environment, KeyScope, OrgRole } from '../../db/schema.js';
import { ApiError, notFound, validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { parseCidr } from '../../lib/ip.js';
import { hashPassword } from '../../lib/passwords.js';
import * as repo from './accounts.repository.js';
import { displayPrefix, generateKeyValue, hashKeyValue } from './key-format.js';
import { isPermission, PERMISSIONS, type Permission } from './permissions.js';
import { isPlan, type Plan } from './plans.js';

import { isOperator, type AccountActor } from './actor.js';

/**
 * Account administration. The operator (the command line) may administer every account; a
 * signed-in user administers their own keys and those of the organizations they own or admin.
 */

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(normalized)) throw validationError('email', `"${email}" is not an email address`);
  return normalized;
}

function requirePlan(plan: string): Plan {
  if (!isPlan(plan)) throw validationError('plan', `plan must be free, pro or enterprise, got "${plan}"`);
  return plan;
}

async function requireUser(db: Db, email: string) {
  const user = await repo.findUserByEmail(db, normalizeEmail(email));
  if (!user) throw notFound(`User ${email}`);
  return user;
}

export async function createUser(ctx: ServiceContext, actor: AccountActor, input: { email: string; password: string; plan: string }) {
  requireOperator(actor);
  const { db, clock } = ctx;
  const email = normalizeEmail(input.email);
  if (input.password.length < 8) throw validationError('password', 'password must be at least 8 characters');
  const plan = requirePlan(input.plan);
  if (await repo.findUserByEmail(db, email)) throw validationError('email', `a user with email ${email} already exists`);
  const now = isoNow(clock);
  const user = { id: newId('usr'), email, password_hash: await hashPassword(input.password), plan, created_at: now, updated_at: now };
  await repo.insertUser(db, user);
  return { id: user.id, email, plan, created_at: now };
}

export async function createOrganization(
  ctx: ServiceContext,
  actor: AccountActor,
  input: { name: string; ownerEmail: string; plan: string },
) {
  requireOperator(actor);
  const { db, clock } = ctx;
  const name = input.name.trim();
  if (name.length < 1 || name.length > 255) throw validationError('name', 'name must be 1-255 characters');
  const plan = requirePlan(input.plan);
  if (plan === 'free') throw validationError('plan', 'organizations are on the pro or enterprise plan');
  const owner = await requireUser(db, input.ownerEmail);
  const now = isoNow(clock);
  const org = { id: newId('org'), name, plan, created_at: now, updated_at: now };
  await transaction(db, async (trx) => {
    await repo.insertOrganization(trx, org);
    await repo.upsertMember(trx, { organization_id: org.id, user_id: owner.id, role: 'owner', created_at: now });
  });
  return { id: org.id, name, plan, owner: { id: owner.id, email: owner.email }, created_at: now };
}

export async function addMember(ctx: ServiceContext, actor: AccountActor, input: { organizationId: string; email: string; role: string }) {
  requireOperator(actor);
  const { db, clock } = ctx;
  if (input.role !== 'admin' && input.role !== 'member') throw validationError('role', 'role must be admin or member');
  const org = await repo.findOrganization(db, input.organizationId);
  if (!org) throw notFound(`Organization ${input.organizationId}`);
  const user = await requireUser(db, input.email);
  const existing = await repo.findMembership(db, org.id, user.id);
  if (existing?.role === 'owner') throw validationError('role', 'the owner keeps the owner role');
  await repo.upsertMember(db, { organization_id: org.id, user_id: user.id, role: input.role as OrgRole, created_at: isoNow(clock) });
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

export async function createKey(ctx: ServiceContext, actor: AccountActor, input: KeyInput) {
  const { db, clock } = ctx;
  const user = await keyOwner(db, actor, input.email);
  const name = input.name.trim();
  if (name.length < 1 || name.length > 255) throw validationError('name', 'name must be 1-255 characters');
  const permissions = parsePermissions(input.permissions);
  const ipAllowlist = parseIpAllowlist(input.ip);
  if (input.organizationId) {
    const membership = await repo.findMembership(db, input.organizationId, user.id);
    if (!membership) throw notFound(`Organization ${input.organizationId}`);
    if (membership.role === 'member') {
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
  await repo.insertKey(db, row);
  return { id: row.id, key: value, prefix: row.prefix, name, permissions, environment, scope: row.scope };
}

/** The operator lists the keys of the user named by `email`; a user lists their own. */
export async function listKeys(ctx: ServiceContext, actor: AccountActor, input: { email?: string }): Promise<KeyView[]> {
  const user = await keyOwner(ctx.db, actor, input.email);
  return (await repo.listKeysOfUser(ctx.db, user.id)).map(toKeyView);
}

/** 404 for a key the actor may not administer, as for one that does not exist. */
async function requireKey(db: Db, actor: AccountActor, id: string) {
  const key = await repo.findKey(db, id);
  if (!key || !(isOperator(actor) || key.user_id === actor.userId)) throw notFound(`API key ${id}`);
  return key;
}

export async function setKeyEnabled(ctx: ServiceContext, actor: AccountActor, input: { id: string; enabled: boolean }): Promise<KeyView> {
  const key = await requireKey(ctx.db, actor, input.id);
  const changes = { enabled: input.enabled ? 1 : 0, updated_at: isoNow(ctx.clock) };
  await repo.updateKey(ctx.db, key.id, changes);
  return toKeyView({ ...key, ...changes });
}

/** Gives the key a new value; the old value stops working at once. */
export async function regenerateKey(ctx: ServiceContext, actor: AccountActor, input: { id: string }) {
  const key = await requireKey(ctx.db, actor, input.id);
  const value = generateKeyValue(key.environment);
  const changes = { key_hash: hashKeyValue(value), prefix: displayPrefix(value), updated_at: isoNow(ctx.clock) };
  await repo.updateKey(ctx.db, key.id, changes);
  return { ...toKeyView({ ...key, ...changes }), key: value };
}

export async function deleteKey(ctx: ServiceContext, actor: AccountActor, input: { id: string }) {
  const key = await requireKey(ctx.db, actor, input.id);
  await repo.deleteKeyRow(ctx.db, key.id);
  return { id: key.id, deleted: true };
}

function requireOperator(actor: AccountActor): void {
  if (!isOperator(actor)) throw new ApiError('forbidden', 'only the operator can do this');
}

/** The user whose keys are meant: the one named (operator), or the acting user. */
async function keyOwner(db: Db, actor: AccountActor, email: string | undefined) {
  if (!isOperator(actor)) {
    const user = await repo.findUserById(db, actor.userId);
    if (!user) throw notFound('User');
    return user;
  }
  if (email === undefined) throw validationError('email', 'email is required');
  return requireUser(db, email);
}
