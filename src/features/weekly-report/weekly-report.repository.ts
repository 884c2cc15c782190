import type { Db } from '../../db/database.js';

/** All SQL of the weekly report: its columns of users (migration 0024). */

export async function isEnabled(db: Db, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('weekly_report').where('id', '=', userId).executeTakeFirst();
  return row?.weekly_report === 1;
}

export function setEnabled(db: Db, userId: string, enabled: boolean, at: string) {
  return db
    .updateTable('users')
    .set({ weekly_report: enabled ? 1 : 0, updated_at: at })
    .where('id', '=', userId)
    .execute();
}

/** The users who asked for the report, with what it needs of them. */
export function subscribers(db: Db) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'plan', 'time_zone', 'weekly_report_week'])
    .where('weekly_report', '=', 1)
    .where('disabled', '=', 0)
    .orderBy('id')
    .execute();
}

/**
 * Records `week` as sent to the user, unless it is already: true for the one worker that
 * recorded it, which then queues the mail in the same transaction (two workers never both do).
 */
export async function claimWeek(db: Db, userId: string, week: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ weekly_report_week: week })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('weekly_report_week', 'is', null), eb('weekly_report_week', '<', week)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
