import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PasskeysTable, WebauthnChallengesTable } from '../../db/schema.js';

/** All SQL of two-factor sign-in (migration 0026): authenticator apps, recovery codes, passkeys, pending sign-ins, challenges. */

export function findTotp(db: Db, userId: string) {
  return db.selectFrom('totp_credentials').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** A new enrolment replaces one never confirmed; a confirmed one is left alone (0 rows). */
export async function putUnconfirmedTotp(db: Db, userId: string, secret: string, at: string): Promise<boolean> {
  await db.deleteFrom('totp_credentials').where('user_id', '=', userId).where('confirmed_at', 'is', null).execute();
  const result = await db
    .insertInto('totp_credentials')
    .values({ user_id: userId, secret, created_at: at, confirmed_at: null, last_step: null })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/**
 * Takes the code of `step` for the user's authenticator: true once, for a step later than the
 * last one taken (a code seen, even within its window, never signs in twice), and confirms an
 * enrolment. Concurrent requests with the same code: one row update wins.
 */
export async function takeTotpStep(db: Db, userId: string, step: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('totp_credentials')
    .set({ last_step: step, confirmed_at: sql`COALESCE(confirmed_at, ${at})` })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Authenticator secrets after `afterUserId`, in user order (re-sealing them all). */
export function totpSecretsAfter(db: Db, afterUserId: string, limit: number) {
  return db
    .selectFrom('totp_credentials')
    .select(['user_id', 'secret'])
    .where('user_id', '>', afterUserId)
    .orderBy('user_id')
    .limit(limit)
    .execute();
}

/** Replaces a stored secret by another form of it, only if it is still `previous` (not changed meanwhile). */
export async function replaceTotpSecret(db: Db, userId: string, previous: string, secret: string): Promise<boolean> {
  const result = await db
    .updateTable('totp_credentials')
    .set({ secret })
    .where('user_id', '=', userId)
    .where('secret', '=', previous)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function deleteTotp(db: Db, userId: string) {
  return db.deleteFrom('totp_credentials').where('user_id', '=', userId).execute();
}

export async function replaceRecoveryCodes(db: Db, userId: string, hashes: string[], at: string): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ code_hash, user_id: userId, created_at: at, used_at: null })))
    .execute();
}

/** Marks an unused code of the user used: true once per code. */
export async function useRecoveryCode(db: Db, userId: string, hash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('code_hash', '=', hash)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function countUnusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function deleteRecoveryCodes(db: Db, userId: string) {
  return db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

export function listPasskeys(db: Db, userId: string) {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('credential_id').execute();
}

export function findPasskey(db: Db, credentialId: string) {
  return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

export function insertPasskey(db: Db, passkey: PasskeysTable) {
  return db.insertInto('passkeys').values(passkey).execute();
}

/** The counter moves only forward: of two concurrent uses of one signature, one updates. */
export async function recordPasskeyUse(db: Db, credentialId: string, counter: number, at: string): Promise<boolean> {
  let query = db.updateTable('passkeys').set({ counter, last_used_at: at }).where('credential_id', '=', credentialId);
  // Authenticators without a counter (passkeys synced between devices) always send 0.
  if (counter > 0) query = query.where('counter', '<', counter);
  return Number((await query.executeTakeFirst()).numUpdatedRows) === 1;
}

export async function deletePasskey(db: Db, userId: string, credentialId: string): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).where('credential_id', '=', credentialId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Removes every second factor of the user, and their pending sign-ins; how many passkeys there were. */
export async function deleteSecondFactors(db: Db, userId: string): Promise<{ authenticator: boolean; passkeys: number }> {
  const authenticator = await db
    .deleteFrom('totp_credentials')
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .executeTakeFirst();
  await db.deleteFrom('totp_credentials').where('user_id', '=', userId).execute();
  const passkeys = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('pending_sign_ins').where('user_id', '=', userId).execute();
  return { authenticator: Number(authenticator.numDeletedRows) > 0, passkeys: Number(passkeys.numDeletedRows) };
}

/** Whether the user has a second factor: a confirmed authenticator or a passkey. */
export async function secondFactorsOf(db: Db, userId: string): Promise<{ totp: boolean; passkeys: number }> {
  const [totp, passkeys] = await Promise.all([
    db
      .selectFrom('totp_credentials')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('confirmed_at', 'is not', null)
      .executeTakeFirst(),
    db
      .selectFrom('passkeys')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { totp: totp !== undefined, passkeys: Number(passkeys.n) };
}

export async function insertPendingSignIn(db: Db, row: { token_hash: string; user_id: string; expires_at: string }, now: string) {
  await db.deleteFrom('pending_sign_ins').where('expires_at', '<=', now).execute();
  await db.insertInto('pending_sign_ins').values(row).execute();
}

export function findPendingSignIn(db: Db, tokenHash: string) {
  return db
    .selectFrom('pending_sign_ins as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.user_id', 'p.expires_at', 'p.failures', 'u.email', 'u.disabled'])
    .where('p.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Counts a wrong code; the sign-in ends at `limit` of them. Returns whether it is still open. */
export async function recordPendingFailure(db: Db, tokenHash: string, limit: number): Promise<boolean> {
  await db
    .updateTable('pending_sign_ins')
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .execute();
  const ended = await db
    .deleteFrom('pending_sign_ins')
    .where('token_hash', '=', tokenHash)
    .where('failures', '>=', limit)
    .executeTakeFirst();
  return Number(ended.numDeletedRows) === 0;
}

/** Ends a pending sign-in: true for the one request that completes it. */
export async function takePendingSignIn(db: Db, tokenHash: string): Promise<boolean> {
  return Number((await db.deleteFrom('pending_sign_ins').where('token_hash', '=', tokenHash).executeTakeFirst()).numDeletedRows) === 1;
}

export async function putChallenge(db: Db, row: WebauthnChallengesTable, now: string) {
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
  await db
    .insertInto('webauthn_challenges')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['binding_hash', 'purpose']).doUpdateSet({ challenge: row.challenge, user_id: row.user_id, expires_at: row.expires_at }),
    )
    .execute();
}

/** The challenge, deleted as it is read: each is answered once. */
export async function takeChallenge(db: Db, bindingHash: string, purpose: WebauthnChallengesTable['purpose']) {
  const row = await db
    .selectFrom('webauthn_challenges')
    .selectAll()
    .where('binding_hash', '=', bindingHash)
    .where('purpose', '=', purpose)
    .executeTakeFirst();
  if (!row) return undefined;
  const deleted = await db
    .deleteFrom('webauthn_challenges')
    .where('binding_hash', '=', bindingHash)
    .where('purpose', '=', purpose)
    .where('challenge', '=', row.challenge)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1 ? row : undefined;
}
