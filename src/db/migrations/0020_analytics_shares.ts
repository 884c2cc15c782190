import type { Kysely } from 'kysely';

/**
 * analytics_shares: a tag's report shown at a public address, /stats/{token}, to anyone who has
 * it (features/shares). The token itself is never stored, only its SHA-256 (`token_hash`,
 * unique: the look-up of every request of the page). A share goes with its tag, deleted by the
 * shares feature's TagDependent in the tag's transaction, as files and analytics are; revoking
 * one deletes its row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('analytics_shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .execute();
  await db.schema.createIndex('analytics_shares_tag_idx').on('analytics_shares').columns(['tag_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('analytics_shares').execute();
}
