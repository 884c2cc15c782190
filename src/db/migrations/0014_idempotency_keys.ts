import type { Kysely } from 'kysely';

/**
 * The Idempotency-Key of each POST, per API key, for 24 hours (src/features/idempotency/).
 *
 * A row is claimed before the operation runs (`status` null: in flight, since `locked_at`)
 * and completed with the response, which a retry with the same key gets back. `fingerprint`
 * is the SHA-256 of the method, path and body: the same key with another request is refused.
 * Rows go with their API key, and the `idempotency-purge` job deletes them after 24 hours
 * (`created_at`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('locked_at', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['api_key_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
