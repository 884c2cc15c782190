import { sql, type Kysely } from 'kysely';

/**
 * The logged views of each tag, in time order: what /logs counts and pages through. Without it
 * both read every view of the tag to find its logged ones, however few are logged. Partial:
 * only logged views are in it, so a view that is not costs nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('views_tag_logged_time_idx')
    .on('views')
    .columns(['tag_id', 'occurred_at'])
    .where(sql.ref('logged'), '=', 1)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('views_tag_logged_time_idx').execute();
}
