import type { Kysely } from 'kysely';

/**
 * users.time_zone: the IANA zone a user chose for the dashboard's reports and times
 * (`Europe/Berlin`); null, everyone's to begin with, means the browser's own zone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('time_zone').execute();
}
