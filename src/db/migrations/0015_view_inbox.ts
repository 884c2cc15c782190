import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * view_inbox: the views answered but not yet ingested. A page waits only for its view's record
 * here: an append to a table without secondary indexes, one small text (a JSON array of the
 * view's columns, see features/analytics/view-record.ts) rather than a dozen bound columns.
 * Ingestion (features/analytics/view-rollup.ts) unpacks the records in the database, stores the
 * views rows, adds them to the rollups, writes their events and deletes the records, in one
 * transaction: a record always reaches the rollups, exactly once, however late.
 *
 * pending_views (0007) named views already in `views` that awaited their rollup: they become
 * records again, their rows go, and ingestion treats them like any other.
 */

// A record's fields, in order (frozen here: a migration must not follow later code).
const FIELDS = [
  'id',
  'tag_id',
  'occurred_at',
  'source',
  'visitor',
  'device',
  'browser',
  'os',
  'country',
  'region',
  'city',
  'ip_masked',
  'user_agent',
  'referrer',
  'logged',
  'duration_seconds',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  // PostgreSQL keeps the record as jsonb: parsed once, on the append, not at every field read.
  await (
    postgres
      ? db.schema
          .createTable('view_inbox')
          .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
          .addColumn('record', 'jsonb', (c) => c.notNull())
      : db.schema
          .createTable('view_inbox')
          .addColumn('seq', 'integer', (c) => c.primaryKey())
          .addColumn('record', 'text', (c) => c.notNull())
  ).execute();
  const fields = sql.join(FIELDS.map((field) => sql.ref(`v.${field}`)));
  const record = postgres ? sql`jsonb_build_array(${fields})` : sql`json_array(${fields})`;
  await sql`INSERT INTO view_inbox (record) SELECT ${record} FROM pending_views p JOIN views v ON v.id = p.view_id ORDER BY v.id`.execute(
    db,
  );
  await sql`DELETE FROM views WHERE id IN (SELECT view_id FROM pending_views)`.execute(db);
  await db.schema.dropTable('pending_views').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  let pending = db.schema.createTable('pending_views').addColumn('view_id', 'text', (c) => c.primaryKey());
  if (!postgres) pending = pending.modifyEnd(sql`WITHOUT ROWID`);
  await pending.execute();
  const field = (i: number) => {
    const text = sql`(i.record ->> ${sql.lit(i)})`;
    return postgres && (FIELDS[i] === 'logged' || FIELDS[i] === 'duration_seconds') ? sql`${text}::integer` : text;
  };
  const columns = sql.join(['environment', 'owner_id', 'organization_id', ...FIELDS].map((column) => sql.ref(column)));
  const values = sql.join([sql`t.environment`, sql`t.owner_id`, sql`t.organization_id`, ...FIELDS.map((_, i) => field(i))]);
  await sql`INSERT INTO views (${columns}) SELECT ${values} FROM view_inbox i JOIN tags t ON t.id = ${field(1)} ORDER BY i.seq`.execute(db);
  await sql`INSERT INTO pending_views (view_id) SELECT v.id FROM view_inbox i JOIN views v ON v.id = ${field(0)}`.execute(db);
  await db.schema.dropTable('view_inbox').execute();
}
