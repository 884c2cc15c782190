import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * A revision on each scope visitor set (scope_day_visitors, scope_month_visitors): a random
 * text the writer sets anew whenever it writes the set. A process keeps the sets it decoded,
 * keyed by their revision (perf/revision-cache.ts), so a report reads the revisions and
 * fetches only the sets it has not kept. Each set existing now gets a revision of its own.
 */
const TABLES = ['scope_day_visitors', 'scope_month_visitors'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  // 12 hex digits of randomness per row, as the writers' newSetRevision gives.
  const random = isPostgres(db) ? sql`substr(md5(random()::text), 1, 12)` : sql`lower(hex(randomblob(6)))`;
  for (const table of TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('revision', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await sql`UPDATE ${sql.table(table)} SET revision = ${random}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await db.schema.alterTable(table).dropColumn('revision').execute();
}
