import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A file belongs to its tag's owner, organization and environment (tenant scope like tags).
  // tag_id has no cascade on purpose: a tag is deleted through the files service, which also
  // releases the storage and removes the blobs; a path that forgot would fail loudly.
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tag_id', 'text', (c) => c.notNull().references('tags.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('original_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('download_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('files_tag_idx').on('files').columns(['tag_id', 'id']).execute();

  // Bytes stored per account (organization, else user) and environment. Uploads add to it with
  // a conditional UPDATE in the transaction that inserts the file row, so two concurrent uploads
  // can never both pass the plan's limit.
  await db.schema
    .createTable('storage_usage')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('used_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('storage_usage_pk', ['account_id', 'environment'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('storage_usage').execute();
  await db.schema.dropTable('files').execute();
}
