import type { Db } from '../../db/database.js';
import type { SessionsTable } from '../../db/schema.js';

/** All SQL of sign-in: sessions, and the user columns that signing in reads and writes. */

export function insertSession(db: Db, session: SessionsTable) {
  return db.insertInto('sessions').values(session).execute();
}

/** The session with what every signed-in request needs of its user, in one query. */
export function findSessionByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.id',
      's.user_id',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      'u.email',
      'u.plan',
      'u.is_owner',
      'u.disabled',
      'u.time_zone',
      // Whether the owner requires a second factor that this user has not set up (migration 0026).
      (eb) =>
        eb
          .and([
            eb.exists(eb.selectFrom('settings').select('name').where('name', '=', 'two_factor').where('value', '=', 'required')),
            eb.not(
              eb.exists(
                eb.selectFrom('totp_credentials').select('user_id').whereRef('user_id', '=', 'u.id').where('confirmed_at', 'is not', null),
              ),
            ),
            eb.not(eb.exists(eb.selectFrom('passkeys').select('user_id').whereRef('user_id', '=', 'u.id'))),
          ])
          .as('must_enrol'),
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export function touchSession(db: Db, id: string, at: string) {
  return db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

export function deleteSession(db: Db, id: string) {
  return db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Ends every session of the user but `keepId` (the one making the change), if given. */
export function deleteSessionsOfUser(db: Db, userId: string, keepId?: string) {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keepId !== undefined) query = query.where('id', '!=', keepId);
  return query.execute();
}

export function deleteSessionsExpiredBefore(db: Db, at: string) {
  return db.deleteFrom('sessions').where('expires_at', '<=', at).execute();
}

export async function hasAnyUser(db: Db): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

export function updateUserPassword(db: Db, id: string, passwordHash: string, at: string) {
  return db.updateTable('users').set({ password_hash: passwordHash, updated_at: at }).where('id', '=', id).execute();
}

export function updateUserTimeZone(db: Db, id: string, zone: string | null, at: string) {
  return db.updateTable('users').set({ time_zone: zone, updated_at: at }).where('id', '=', id).execute();
}

export function recordSignIn(db: Db, id: string, at: string) {
  return db.updateTable('users').set({ last_sign_in_at: at }).where('id', '=', id).execute();
}
