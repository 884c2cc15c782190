import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * The audit log keyed by time: every change of the service writes one entry in its own
 * transaction, and each index is one more page that commit writes. The entries are kept in
 * (created_at, id) order, which is the order every read and the retention use (on SQLite the
 * table itself: WITHOUT ROWID), and each entry lands in one workspace index only: an
 * organization's (organization_id set) or a user's own space's (organization_id null). Five
 * B-trees an entry before, two now on SQLite (three on PostgreSQL: its heap besides).
 */
const COLUMNS = sql.raw(
  'id, created_at, organization_id, owner_id, environment, actor_type, actor_id, actor_name, action, target_id, ip, request_id, details',
);

/** An entry's columns after its id, the same in both shapes of the table. */
function entryColumns(table: CreateTableBuilder<string, 'id'>) {
  return table
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text')
    .addColumn('owner_id', 'text')
    .addColumn('environment', 'text')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('request_id', 'text')
    .addColumn('details', 'text');
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  let table = entryColumns(db.schema.createTable('audit_log_by_time').addColumn('id', 'text', (c) => c.notNull())).addPrimaryKeyConstraint(
    'audit_log_pkey_time',
    ['created_at', 'id'],
  );
  if (!postgres) table = table.modifyEnd(sql`WITHOUT ROWID`);
  await table.execute();
  await sql`INSERT INTO audit_log_by_time (${COLUMNS}) SELECT ${COLUMNS} FROM audit_log`.execute(db);
  await db.schema.dropTable('audit_log').execute();
  await db.schema.alterTable('audit_log_by_time').renameTo('audit_log').execute();
  await db.schema
    .createIndex('audit_log_org_idx')
    .on('audit_log')
    .columns(['organization_id', 'created_at', 'id'])
    .where(sql.ref('organization_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('audit_log_owner_idx')
    .on('audit_log')
    .columns(['owner_id', 'created_at', 'id'])
    .where(sql.ref('organization_id'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_org_idx').execute();
  await db.schema.dropIndex('audit_log_owner_idx').execute();
  await entryColumns(db.schema.createTable('audit_log_by_id').addColumn('id', 'text', (c) => c.primaryKey())).execute();
  await sql`INSERT INTO audit_log_by_id (${COLUMNS}) SELECT ${COLUMNS} FROM audit_log`.execute(db);
  await db.schema.dropTable('audit_log').execute();
  await db.schema.alterTable('audit_log_by_id').renameTo('audit_log').execute();
  await db.schema.createIndex('audit_log_org_idx').on('audit_log').columns(['organization_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_owner_idx').on('audit_log').columns(['owner_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_created_idx').on('audit_log').column('created_at').execute();
}
