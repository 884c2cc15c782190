import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * pending_views: the views committed but not yet rolled up. A page waits only for its view
 * and this row; the rollup (features/analytics/view-rollup.ts) later adds the view to the
 * rollups, writes its tag.viewed / qr.scanned events and deletes the row, in one transaction.
 * The row is the view's outbox entry: a committed view always reaches the rollups and yields
 * its events, however late.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  let table = db.schema.createTable('pending_views').addColumn('view_id', 'text', (c) => c.primaryKey());
  // One B-tree instead of a rowid table plus its key's index: the row is written with every view.
  if (!postgres) table = table.modifyEnd(sql`WITHOUT ROWID`);
  await table.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('pending_views').execute();
}
