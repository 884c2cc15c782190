import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * view_inbox keeps one row per group of views committed together (features/analytics/
 * view-recorder.ts) instead of one per view: `records` holds the group's records as one JSON
 * array, `views` how many. The per-row costs of an append (its tuple, its key in the index, its
 * later deletion) are then paid once a group rather than once a view.
 *
 * A record left from before (one view) becomes a group of one, so none is lost across the
 * change, in either direction. On PostgreSQL, vacuums leave the inbox's empty pages in place.
 */

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('view_inbox').renameColumn('record', 'records').execute();
  await db.schema
    .alterTable('view_inbox')
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // SQLite: json() reads a record kept as JSONB or as text alike, and marks it as JSON, so the
  // array takes it as a value rather than as a string.
  const postgres = isPostgres(db);
  const group = postgres ? sql`jsonb_build_array(records)` : sql`jsonb_array(json(records))`;
  await sql`UPDATE view_inbox SET records = ${group}`.execute(db);
  // A vacuum that finds the inbox's last pages empty (most of the time: its rows are few, and
  // go as a batch) would cut them off the file under an exclusive lock, which stops every
  // page's append while it lasts. The pages are reused at once anyway.
  if (postgres) await sql`ALTER TABLE view_inbox SET (vacuum_truncate = false)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  // The groups' records as rows of their own again, in their order, through a table of the old shape.
  await (
    postgres
      ? db.schema
          .createTable('view_inbox_rows')
          .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
          .addColumn('record', 'jsonb', (c) => c.notNull())
      : db.schema
          .createTable('view_inbox_rows')
          .addColumn('seq', 'integer', (c) => c.primaryKey())
          .addColumn('record', 'text', (c) => c.notNull())
  ).execute();
  await (
    postgres
      ? sql`INSERT INTO view_inbox_rows (record)
        SELECT e.value FROM view_inbox g, jsonb_array_elements(g.records) WITH ORDINALITY AS e(value, n) ORDER BY g.seq, e.n`
      : sql`INSERT INTO view_inbox_rows (record)
        SELECT e.value FROM view_inbox g, jsonb_each(g.records) AS e ORDER BY g.seq, e.key`
  ).execute(db);
  await db.schema.dropTable('view_inbox').execute();
  await db.schema.alterTable('view_inbox_rows').renameTo('view_inbox').execute();
}
