import type { Db } from '../../db/database.js';

/** All SQL of the instance settings (migration 0012): one row per setting the owner changed. */

export async function findSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

export function upsertSetting(db: Db, name: string, value: string, at: string) {
  return db
    .insertInto('settings')
    .values({ name, value, updated_at: at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: at }))
    .execute();
}
