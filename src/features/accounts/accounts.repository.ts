import { sql, type Insertable } from 'kysely';
import { isUniqueViolation, type Db } from '../../db/database.js';
import type { ApiKeysTable, OrganizationMembersTable, OrganizationsTable, OrgRole, Plan, UsersTable } from '../../db/schema.js';
import { afterCommit } from '../../db/transaction.js';
import { announceChange } from '../../perf/exact-cache.js';

/** All SQL for users, organizations and API keys. */

/**
 * Inserts the user; false when another account took the address meanwhile (between the
 * caller's check and this write). On PostgreSQL the transaction is then unusable: the caller
 * throws.
 */
export async function insertUser(db: Db, user: Insertable<UsersTable>): Promise<boolean> {
  try {
    await db.insertInto('users').values(user).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error, 'users', 'email')) return false;
    throw error;
  }
}

export function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findUserById(db: Db, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every write that can change what a key authenticates as drops this process's key cache once committed. */
const keysChanged = () => announceChange('keys');

/** `text` as a LIKE pattern matching itself anywhere: its wildcards and the escape character are escaped. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A page of every user, oldest first, whose email contains `search` (emails are stored lower-cased), and their count. */
export async function listUsersPage(db: Db, search: string, page: { limit: number; offset: number }) {
  let users = db.selectFrom('users');
  if (search) users = users.where(sql<boolean>`email LIKE ${containing(search.toLowerCase())} ESCAPE '\\'`);
  const [rows, count] = await Promise.all([
    users
      .select(['id', 'email', 'plan', 'created_at', 'last_sign_in_at', 'is_owner', 'disabled'])
      // Whether the user has a second factor (migration 0026): a confirmed authenticator app or a passkey.
      .select((eb) =>
        eb
          .or([
            eb.exists(
              eb
                .selectFrom('totp_credentials as t')
                .select('t.user_id')
                .whereRef('t.user_id', '=', 'users.id')
                .where('t.confirmed_at', 'is not', null),
            ),
            eb.exists(eb.selectFrom('passkeys as p').select('p.user_id').whereRef('p.user_id', '=', 'users.id')),
          ])
          .as('two_factor'),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    users.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(count.count), rows };
}

/** How many users there are, and how many of them are disabled. */
export async function countUsers(db: Db) {
  const row = await db
    .selectFrom('users')
    .select((eb) => [eb.fn.countAll<number | string>().as('total'), eb.fn.sum<number | string | null>('disabled').as('disabled')])
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), disabled: Number(row.disabled ?? 0) };
}

/** Disabling or enabling changes what the user's keys authenticate as (they are refused while disabled). */
export async function updateUserDisabled(db: Db, id: string, disabled: boolean, at: string) {
  await db
    .updateTable('users')
    .set({ disabled: disabled ? 1 : 0, updated_at: at })
    .where('id', '=', id)
    .execute();
  await afterCommit(db, keysChanged);
}

/** The plan is part of what a personal key authenticates as (its limits). */
export async function updateUserPlan(db: Db, id: string, plan: Plan, at: string) {
  await db.updateTable('users').set({ plan, updated_at: at }).where('id', '=', id).execute();
  await afterCommit(db, keysChanged);
}

export function insertOrganization(db: Db, org: OrganizationsTable) {
  return db.insertInto('organizations').values(org).execute();
}

export function updateOrganization(db: Db, id: string, changes: Pick<OrganizationsTable, 'name' | 'updated_at'>) {
  return db.updateTable('organizations').set(changes).where('id', '=', id).execute();
}

export function findOrganization(db: Db, id: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A page of every organization, oldest first, with its owner's email and member count, and their count. */
export async function listOrganizationsPage(db: Db, page: { limit: number; offset: number }) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('organizations as o')
      .leftJoin('organization_members as owner', (join) => join.onRef('owner.organization_id', '=', 'o.id').on('owner.role', '=', 'owner'))
      .leftJoin('users as u', 'u.id', 'owner.user_id')
      .select((eb) => [
        'o.id',
        'o.name',
        'o.plan',
        'o.created_at',
        'u.email as owner_email',
        eb
          .selectFrom('organization_members as m')
          .select((sub) => sub.fn.countAll<number | string>().as('count'))
          .whereRef('m.organization_id', '=', 'o.id')
          .as('members'),
      ])
      .orderBy('o.created_at')
      .orderBy('o.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    countOrganizations(db),
  ]);
  return { total: count, rows: rows.map((row) => ({ ...row, members: Number(row.members ?? 0) })) };
}

export async function countOrganizations(db: Db): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function upsertMember(db: Db, member: OrganizationMembersTable) {
  return db
    .insertInto('organization_members')
    .values(member)
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet({ role: member.role }))
    .execute();
}

export function findMembership(db: Db, organizationId: string, userId: string) {
  return db
    .selectFrom('organization_members')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Every organization `userId` belongs to, with their role. */
export function listMembershipsOfUser(db: Db, userId: string) {
  return db
    .selectFrom('organization_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.name', 'o.plan', 'o.created_at', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('o.name')
    .execute();
}

export function listMembers(db: Db, organizationId: string) {
  return db
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'm.role', 'm.created_at'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('m.created_at')
    .orderBy('u.email')
    .execute();
}

export function updateMemberRole(db: Db, organizationId: string, userId: string, role: OrgRole) {
  return db
    .updateTable('organization_members')
    .set({ role })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute();
}

export function deleteMember(db: Db, organizationId: string, userId: string) {
  return db.deleteFrom('organization_members').where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
}

/** A removed member's keys for the organization stop working: those that worked, returned (each is an audit entry). */
export async function disableKeysOfMember(db: Db, organizationId: string, userId: string, at: string) {
  const disabled = await db
    .updateTable('api_keys')
    .set({ enabled: 0, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('enabled', '=', 1)
    .returning(['id', 'user_id', 'organization_id', 'environment'])
    .execute();
  await afterCommit(db, keysChanged);
  return disabled;
}

/** A user's personal keys and every key of the organizations they own or admin: a page of them and their count. */
export async function listKeysAdministeredBy(db: Db, userId: string, page: { limit: number; offset: number }) {
  const administered = keysAdministeredBy(db, userId);
  const [rows, count] = await Promise.all([
    administered.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute(),
    administered.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { total: Number(count.count), rows };
}

function keysAdministeredBy(db: Db, userId: string) {
  return db
    .selectFrom('api_keys')
    .where((eb) =>
      eb.or([
        eb.and([eb('user_id', '=', userId), eb('organization_id', 'is', null)]),
        eb(
          'organization_id',
          'in',
          eb
            .selectFrom('organization_members')
            .select('organization_id')
            .where('user_id', '=', userId)
            .where('role', 'in', ['owner', 'admin']),
        ),
      ]),
    );
}

export function insertKey(db: Db, key: ApiKeysTable) {
  return db.insertInto('api_keys').values(key).execute();
}

export function findKey(db: Db, id: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listKeysOfUser(db: Db, userId: string) {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function updateKey(
  db: Db,
  id: string,
  changes: Partial<Pick<ApiKeysTable, 'name' | 'permissions' | 'ip_allowlist' | 'enabled' | 'key_hash' | 'prefix' | 'updated_at'>>,
) {
  await db.updateTable('api_keys').set(changes).where('id', '=', id).execute();
  await afterCommit(db, keysChanged);
}

export async function deleteKeyRow(db: Db, id: string) {
  await db.deleteFrom('api_keys').where('id', '=', id).execute();
  await afterCommit(db, keysChanged);
}

export function touchKeyLastUsed(db: Db, id: string, at: string) {
  return db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** The key with everything authentication needs: its owner's and organization's plan. */
export function findKeyForAuthentication(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .leftJoin('organizations as o', 'o.id', 'k.organization_id')
    .select([
      'k.id',
      'k.name',
      'k.user_id',
      'k.organization_id',
      'k.environment',
      'k.scope',
      'k.permissions',
      'k.ip_allowlist',
      'k.enabled',
      'k.key_hash',
      'u.email',
      'u.plan as user_plan',
      'u.disabled as user_disabled',
      'o.name as organization_name',
      'o.plan as organization_plan',
    ])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}
