import type { Kysely } from 'kysely';

/**
 * audit_log: one row per state change, written in the change's own transaction
 * (features/audit). The workspace it belongs to is an organization (`organization_id`), a
 * user's own space (`owner_id`, organization_id null), or neither: the instance itself (the
 * operator's settings, a failed sign-in of an unknown address). Addresses are stored masked
 * (IPv4 /24, IPv6 /48), never whole. The worker deletes rows older than AUDIT_RETENTION_DAYS.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
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
    .addColumn('details', 'text')
    .execute();
  await db.schema.createIndex('audit_log_org_idx').on('audit_log').columns(['organization_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_owner_idx').on('audit_log').columns(['owner_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_created_idx').on('audit_log').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
