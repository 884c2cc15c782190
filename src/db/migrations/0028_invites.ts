import type { Kysely } from 'kysely';

/**
 * organization_invites: an address invited to an organization with a role (features/accounts,
 * invites.ts). The mailed link's token is stored as its SHA-256 only (`token_hash`, unique: the
 * look-up of the accept page). An invite ends when it is accepted, revoked or seven days old;
 * ended invites stay a month so that following an old link says which of these it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('organization_invites_org_idx')
    .on('organization_invites')
    .columns(['organization_id', 'created_at'])
    .execute();
  await db.schema.createIndex('organization_invites_email_idx').on('organization_invites').columns(['email']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_invites').execute();
}
