import { type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * link_clicks: one row per counted click of a web link block of a public page (the redirect
 * /t/{short_id}/l/{block_id}, features/analytics/click-recorder.ts). Clicks are far fewer than
 * views, so reports count these raw rows over a period instead of keeping rollups.
 *
 * The key is a number the database issues: a click has no address of its own, and a number is
 * the smallest key to write and to index. `scope_id` is the tag's organization, else its owner:
 * retention finds the clicks past a plan's history through the plan's users and organizations
 * (scope, time), as it finds views through the rollups. A tag's clicks are deleted with it by
 * analytics (its TagDependent), like its views: no foreign key, whose check would cost every
 * stored click a look-up of its tag, which the insert makes once a group already.
 */

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('link_clicks')
    // SQLite: an INTEGER PRIMARY KEY is the rowid, which the database numbers itself.
    .addColumn('id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey()))
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('block_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('visitor', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('link_clicks_tag_time_idx').on('link_clicks').columns(['tag_id', 'occurred_at']).execute();
  await db.schema.createIndex('link_clicks_scope_time_idx').on('link_clicks').columns(['scope_id', 'occurred_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_clicks').execute();
}
