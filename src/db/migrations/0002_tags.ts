import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('folders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('parent_id', 'text', (c) => c.references('folders.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('folders_owner_idx').on('folders').columns(['environment', 'owner_id']).execute();
  await db.schema.createIndex('folders_org_idx').on('folders').columns(['environment', 'organization_id']).execute();

  // Every short id ever issued, so a deleted tag's address is never handed to another tag.
  await db.schema
    .createTable('short_ids')
    .addColumn('short_id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('folder_id', 'text', (c) => c.references('folders.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('read_permission', 'text', (c) => c.notNull())
    .addColumn('write_permission', 'text', (c) => c.notNull())
    .addColumn('access_logging', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tags_owner_idx').on('tags').columns(['environment', 'owner_id', 'organization_id', 'id']).execute();
  await db.schema.createIndex('tags_org_idx').on('tags').columns(['environment', 'organization_id', 'id']).execute();
  await db.schema.createIndex('tags_folder_idx').on('tags').column('folder_id').execute();

  // The outbox: written in the same transaction as the change that causes the event.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text')
    .addColumn('tag_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('dispatched_at', 'text')
    .execute();
  await db.schema.createIndex('events_undispatched_idx').on('events').columns(['dispatched_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['events', 'tags', 'short_ids', 'folders']) {
    await db.schema.dropTable(table).execute();
  }
}
