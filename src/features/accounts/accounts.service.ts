import type { Db } from '../../db/database.js';
import { announceChange } from '../../db/exact-cache.js';
import type { ApiKeysTable, Environment, KeyScope, OrgRole } from '../../db/schema.js';
import { ApiError, notFound, validationError } from '../../http/errors.js';
import { isoNow, type Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { parseCidr } from '../../lib/ip.js';
import { hashPassword } from '../../lib/passwords.js';
import * as repo from './accounts.repository.js';
import { displayPrefix, generateKeyValue, hashKeyValue } from './key-format.js';
import { isPermission, PERMISSIONS, type Permission } from './permissions.js';
import { isPlan, type Plan } from './plans.js';

/** Account administration: used by the command line (and later the dashboard). */

/** Authentication caches in this process drop at once; other processes see it in the database. */
const announceKeyChange = () => announceChange('keys');

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

/** The one password rule, for new accounts and changed passwords alike. */
export function requireNewPassword(password: string, field = 'password'): void {
  if (password.length < 8) throw validationError(field, 'password must be at least 8 characters');
  // scrypt's cost grows with the input; nobody types more than this.
  if (password.length > 1024) throw validationError(field, 'password must be at most 1024 characters');
}

/** `owner` marks the instance owner (the first-run account); the database allows one. */
export async function createUser(db: Db, clock: Clock, input: { email: string; password: string; plan: string; owner?: boolean }) {
  const email = normalizeEmail(input.email);
  requireNewPassword(input.password);
  const plan = requirePlan(input.plan);
  if (await repo.findUserByEmail(db, email)) throw validationError('email', `a user with email ${email} already exists`);
  const now = isoNow(clock);
  const user = { id: newId('usr'), email, password_hash: await hashPassword(input.password), plan, created_at: now, updated_at: now };
  await repo.insertUser(db, { ...user, is_owner: input.owner ? 1 : 0 });
  return { id: user.id, email, plan, created_at: now };
}

export async function createOrganization(db: Db, clock: Clock, input: { name: string; ownerEmail: string; plan: string }) {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 255) throw validationError('name', 'name must be 1-255 characters');
  const plan = requirePlan(input.plan);
  if (plan === 'free') throw validationError('plan', 'organizations are on the pro or enterprise plan');
  const owner = await requireUser(db, input.ownerEmail);
  const now = isoNow(clock);
  const org = { id: newId('org'), name, plan, created_at: now, updated_at: now };
  await db.transaction().execute(async (trx) => {
    await repo.insertOrganization(trx, org);
    await repo.upsertMember(trx, { organization_id: org.id, user_id: owner.id, role: 'owner', created_at: now });
  });
  return { id: org.id, name, plan, owner: { id: owner.id, email: owner.email }, created_at: now };
}

export async function addMember(db: Db, clock: Clock, input: { organizationId: string; email: string; role: string }) {
  if (input.role !== 'admin' && input.role !== 'member') throw validationError('role', 'role must be admin or member');
  const org = await repo.findOrganization(db, input.organizationId);
  if (!org) throw notFound(`Organization ${input.organizationId}`);
  const user = await requireUser(db, input.email);
  const existing = await repo.findMembership(db, org.id, user.id);
  if (existing?.role === 'owner') throw validationError('role', 'the owner keeps the owner role');
  await repo.upsertMember(db, { organization_id: org.id, user_id: user.id, role: input.role as OrgRole, created_at: isoNow(clock) });
  return { organization_id: org.id, user_id: user.id, email: user.email, role: input.role };
}

function parsePermissions(text: string | undefined): Permission[] {
  if (text === undefined || text.trim() === 'all') return [...PERMISSIONS];
  const names = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (names.length === 0) throw validationError('permissions', 'give at least one permission, or all');
  for (const name of names) {
    if (!isPermission(name)) throw validationError('permissions', `unknown permission "${name}"; known: ${PERMISSIONS.join(', ')}`);
  }
  return [...new Set(names)] as Permission[];
}

function parseIpAllowlist(text: string | undefined): string[] | null {
  if (text === undefined || text.trim() === '') return null;
  const ranges = text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
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

export async function createKey(
  db: Db,
  clock: Clock,
  input: { email: string; name: string; permissions?: string; test?: boolean; organizationId?: string; ip?: string },
) {
  const user = await requireUser(db, input.email);
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

export async function listKeys(db: Db, email: string): Promise<KeyView[]> {
  const user = await requireUser(db, email);
  return (await repo.listKeysOfUser(db, user.id)).map(toKeyView);
}

async function requireKey(db: Db, id: string) {
  const key = await repo.findKey(db, id);
  if (!key) throw notFound(`API key ${id}`);
  return key;
}

export async function setKeyEnabled(db: Db, clock: Clock, id: string, enabled: boolean): Promise<KeyView> {
  const key = await requireKey(db, id);
  const updated_at = isoNow(clock);
  await repo.updateKey(db, id, { enabled: enabled ? 1 : 0, updated_at });
  announceKeyChange();
  return toKeyView({ ...key, enabled: enabled ? 1 : 0, updated_at });
}

/** Gives the key a new value; the old value stops working at once. */
export async function regenerateKey(db: Db, clock: Clock, id: string) {
  const key = await requireKey(db, id);
  const value = generateKeyValue(key.environment);
  const changes = { key_hash: hashKeyValue(value), prefix: displayPrefix(value), updated_at: isoNow(clock) };
  await repo.updateKey(db, id, changes);
  announceKeyChange();
  return { ...toKeyView({ ...key, ...changes }), key: value };
}

export async function deleteKey(db: Db, id: string) {
  await requireKey(db, id);
  await repo.deleteKeyRow(db, id);
  announceKeyChange();
  return { id, deleted: true };
}
