import { sql, type Kysely } from 'kysely';

/**
 * What a tag's owner decides about its public page: its status and schedule, a cap on its
 * views, where an expired page sends visitors, a password, and a theme. Every existing tag
 * stays as it was: published, unscheduled, open, in the default theme.
 *
 * short_ids learns which tag holds (or held) each address, so a retired address can redirect to
 * the tag's current one, and its case-folded form, unique, so a chosen address never differs
 * from another only by case. Generated addresses from before, of which two might differ only by
 * case, keep the folded form on the first only; the later one still counts as taken (the claim
 * checks both columns).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('tags')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('published'))
    .execute();
  for (const column of ['publish_at', 'expires_at', 'expired_url', 'password_hash', 'theme_accent']) {
    await db.schema.alterTable('tags').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('tags').addColumn('max_views', 'integer').execute();
  await db.schema
    .alterTable('tags')
    .addColumn('theme_preset', 'text', (c) => c.notNull().defaultTo('default'))
    .execute();

  // Views counted against a tag's max_views, claimed one by one as each is shown.
  await db.schema
    .createTable('tag_view_counts')
    .addColumn('tag_id', 'text', (c) => c.primaryKey().references('tags.id').onDelete('cascade'))
    .addColumn('views', 'integer', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('short_ids').addColumn('tag_id', 'text').execute();
  await db.schema.alterTable('short_ids').addColumn('folded', 'text').execute();
  await sql`UPDATE short_ids SET tag_id = (SELECT tags.id FROM tags WHERE tags.short_id = short_ids.short_id)`.execute(db);
  await sql`UPDATE short_ids SET folded = lower(short_id)
    WHERE NOT EXISTS (SELECT 1 FROM short_ids AS earlier
      WHERE lower(earlier.short_id) = lower(short_ids.short_id) AND earlier.short_id < short_ids.short_id)`.execute(db);
  await db.schema.createIndex('short_ids_folded_idx').on('short_ids').column('folded').unique().execute();
  await db.schema.createIndex('short_ids_tag_idx').on('short_ids').column('tag_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('short_ids_tag_idx').execute();
  await db.schema.dropIndex('short_ids_folded_idx').execute();
  await db.schema.alterTable('short_ids').dropColumn('folded').execute();
  await db.schema.alterTable('short_ids').dropColumn('tag_id').execute();
  await db.schema.dropTable('tag_view_counts').execute();
  for (const column of [
    'status',
    'publish_at',
    'expires_at',
    'expired_url',
    'password_hash',
    'theme_accent',
    'max_views',
    'theme_preset',
  ]) {
    await db.schema.alterTable('tags').dropColumn(column).execute();
  }
}
