import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ApiKeysTable, OrganizationMembersTable, OrganizationsTable, UsersTable } from '../../db/schema.js';

/** All SQL for users, organizations and API keys. */

export function insertUser(db: Db, user: Insertable<UsersTable>) {
  return db.insertInto('users').values(user).execute();
}

export function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function insertOrganization(db: Db, org: OrganizationsTable) {
  return db.insertInto('organizations').values(org).execute();
}

export function findOrganization(db: Db, id: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
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

export function insertKey(db: Db, key: ApiKeysTable) {
  return db.insertInto('api_keys').values(key).execute();
}

export function findKey(db: Db, id: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listKeysOfUser(db: Db, userId: string) {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export function updateKey(db: Db, id: string, changes: Partial<Pick<ApiKeysTable, 'enabled' | 'key_hash' | 'prefix' | 'updated_at'>>) {
  return db.updateTable('api_keys').set(changes).where('id', '=', id).executeTakeFirst();
}

export function deleteKeyRow(db: Db, id: string) {
  return db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
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
      'o.name as organization_name',
      'o.plan as organization_plan',
    ])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}
