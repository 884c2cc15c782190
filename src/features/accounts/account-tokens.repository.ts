import type { Db } from '../../db/database.js';
import type { AccountTokensTable } from '../../db/schema.js';

/** All SQL of the single-use links mailed to users (a password reset, an address to verify). */

export function insertAccountToken(db: Db, row: Omit<AccountTokensTable, 'used_at'>) {
  return db.insertInto('account_tokens').values(row).execute();
}

export function findAccountToken(db: Db, tokenHash: string, purpose: AccountTokensTable['purpose']) {
  return db
    .selectFrom('account_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.user_id', 't.expires_at', 't.used_at', 'u.email', 'u.disabled'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.purpose', '=', purpose)
    .executeTakeFirst();
}

/** Spends the token unless it is spent already: true for the one caller that spent it. */
export async function spendAccountToken(db: Db, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('account_tokens')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Spends every unspent token of the user for `purpose` (a new password makes older reset links useless). */
export function spendAccountTokensOf(db: Db, userId: string, purpose: AccountTokensTable['purpose'], at: string) {
  return db
    .updateTable('account_tokens')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** Tokens past their end by `before` go (spent or not): the link answers as unknown from then on. */
export function deleteAccountTokensExpiredBefore(db: Db, before: string) {
  return db.deleteFrom('account_tokens').where('expires_at', '<', before).execute();
}

export function findUserMailState(db: Db, userId: string) {
  return db.selectFrom('users').select(['id', 'email', 'email_verified_at']).where('id', '=', userId).executeTakeFirst();
}

export function markEmailVerified(db: Db, userId: string, at: string) {
  return db.updateTable('users').set({ email_verified_at: at, updated_at: at }).where('id', '=', userId).execute();
}
