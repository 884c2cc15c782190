import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * SQLite: the revisions and stale marks of the visitor sets are read from indexes. A report reads
 * them first to learn which sets it already holds (perf/revision-cache.ts), but the columns come
 * after `visitors` in their rows, and SQLite reaches a column past a value that overflows its
 * page only by walking the value's overflow pages: a busy tag's year of month sets is some 550
 * pages, read to learn 11 revisions (8 to 13 ms when they are not in memory, measured). The
 * indexes cover the reads, so those pages are read only when a set is fetched.
 *
 * PostgreSQL keeps such values out of line (TOAST) and never reads them for the other columns.
 */
const KEYS = [
  { index: 'tag_month_visitors_revision_idx', table: 'tag_month_visitors', columns: ['tag_id', 'month', 'stale', 'revision'] },
  {
    index: 'scope_month_visitors_revision_idx',
    table: 'scope_month_visitors',
    columns: ['environment', 'scope_id', 'month', 'stale', 'revision'],
  },
  {
    index: 'scope_day_visitors_revision_idx',
    table: 'scope_day_visitors',
    columns: ['environment', 'scope_id', 'day', 'stale', 'revision'],
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  for (const key of KEYS) {
    await sql`CREATE INDEX ${sql.ref(key.index)} ON ${sql.table(key.table)} (${sql.join(key.columns.map((c) => sql.ref(c)))})`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  for (const key of KEYS) await db.schema.dropIndex(key.index).execute();
}
