import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { OrganizationInvitesTable } from '../../db/schema.js';

/** Organization invites (migration 0028): pending, accepted, revoked or expired. */

export function insertInvite(db: Db, invite: Insertable<OrganizationInvitesTable>) {
  return db.insertInto('organization_invites').values(invite).execute();
}

/** Invites with their organization's name and their sender's address. */
const named = (db: Db) =>
  db
    .selectFrom('organization_invites as i')
    .innerJoin('organizations as o', 'o.id', 'i.organization_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .selectAll('i')
    .select(['o.name as organization_name', 'u.email as inviter_email']);

/** The invite a link's token hash opens. */
export function findInviteByTokenHash(db: Db, tokenHash: string) {
  return named(db).where('i.token_hash', '=', tokenHash).executeTakeFirst();
}

const pending = (now: string) => (db: Db) =>
  named(db).where('i.accepted_at', 'is', null).where('i.revoked_at', 'is', null).where('i.expires_at', '>', now);

/** An organization's invites still open at `now`, newest first. */
export function listPendingInvites(db: Db, organizationId: string, now: string) {
  return pending(now)(db).where('i.organization_id', '=', organizationId).orderBy('i.created_at', 'desc').orderBy('i.id').execute();
}

/** The invites still open at `now` addressed to `email`, oldest first. */
export function listPendingInvitesTo(db: Db, email: string, now: string) {
  return pending(now)(db).where('i.email', '=', email).orderBy('i.created_at').orderBy('i.id').execute();
}

/** Ends the organization's open invites to `email` (a new invite replaces them), or one invite by id. */
export function revokeInvites(db: Db, where: { organizationId: string; email?: string; id?: string }, at: string) {
  let query = db
    .updateTable('organization_invites')
    .set({ revoked_at: at })
    .where('organization_id', '=', where.organizationId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null);
  if (where.email !== undefined) query = query.where('email', '=', where.email);
  if (where.id !== undefined) query = query.where('id', '=', where.id);
  return query.executeTakeFirst();
}

/** Ends the open invites `userId` sent for the organization: they no longer administer it. */
export function revokeInvitesSentBy(db: Db, organizationId: string, userId: string, at: string) {
  return db
    .updateTable('organization_invites')
    .set({ revoked_at: at })
    .where('organization_id', '=', organizationId)
    .where('invited_by', '=', userId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Marks the invite accepted, if no one did first (or revoked it); whether this call did. */
export async function markAccepted(db: Db, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('organization_invites')
    .set({ accepted_at: at })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Drops invites that ended (accepted, revoked or expired) before `before`: a month after, links to them say only "unknown". */
export function deleteInvitesEndedBefore(db: Db, before: string) {
  return db
    .deleteFrom('organization_invites')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('accepted_at', '<', before), eb('revoked_at', '<', before)]))
    .execute();
}
