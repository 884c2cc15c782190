import { sql, type Kysely } from 'kysely';

/**
 * tag_visitor_days.visitor_number: the visitor's number (visitors.id) when the rollup wrote the
 * row, if the visitor had one then. The overview adds the open days' visitors to the closed
 * days' sets by number; looking each open row's visitor up in `visitors` (millions of rows,
 * by a random text key) was a large part of a year's overview. A row without one (the visitor
 * was numbered later, or never) is still looked up.
 * Rows open now take their numbers here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tag_visitor_days').addColumn('visitor_number', 'integer').execute();
  await sql`UPDATE tag_visitor_days SET visitor_number = (SELECT v.id FROM visitors v WHERE v.key = tag_visitor_days.visitor)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tag_visitor_days').dropColumn('visitor_number').execute();
}
