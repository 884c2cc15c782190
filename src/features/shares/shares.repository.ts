import type { Db } from '../../db/database.js';
import type { AnalyticsSharesTable } from '../../db/schema.js';

/** All the SQL of shared reports. */

export async function insertShare(db: Db, share: AnalyticsSharesTable): Promise<void> {
  await db.insertInto('analytics_shares').values(share).execute();
}

/** A tag's shares, oldest first. */
export function listSharesOfTag(db: Db, tagId: string): Promise<AnalyticsSharesTable[]> {
  return db.selectFrom('analytics_shares').selectAll().where('tag_id', '=', tagId).orderBy('created_at').orderBy('id').execute();
}

export function findShareByTokenHash(db: Db, tokenHash: string): Promise<AnalyticsSharesTable | undefined> {
  return db.selectFrom('analytics_shares').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Deletes one of the tag's shares; whether it was there. */
export async function deleteShare(db: Db, tagId: string, shareId: string): Promise<boolean> {
  const result = await db.deleteFrom('analytics_shares').where('id', '=', shareId).where('tag_id', '=', tagId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteSharesOfTag(db: Db, tagId: string): Promise<void> {
  await db.deleteFrom('analytics_shares').where('tag_id', '=', tagId).execute();
}
