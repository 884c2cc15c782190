import type { Kysely } from 'kysely';

/**
 * bot_views: requests to public pages from known bots (features/analytics/bot-views.ts),
 * counted per tag and hour in memory and added to the rollups a few seconds later, never stored
 * one by one. In the tag's hours and days (the tag report) and the scope's days (the overview),
 * which retention and a tag's deletion already clear. 0 for everything before.
 */
const TABLES = ['tag_hourly', 'tag_daily', 'scope_daily'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('bot_views', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await db.schema.alterTable(table).dropColumn('bot_views').execute();
}
