import { sql, type Kysely } from 'kysely';

/**
 * scope_hourly: an account's (or organization's) views, scans and bot requests per UTC hour,
 * so the overview can add up the days of any time zone (a day in Berlin is 23:00 to 23:00 UTC)
 * from about 24 rows a day, as scope_daily serves UTC. Filled from its tags' hours, each under
 * the scope its tag's day was counted in (tag_daily), as scope_daily was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scope_hourly')
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('views', 'integer', (c) => c.notNull())
    .addColumn('qr_scans', 'integer', (c) => c.notNull())
    .addColumn('bot_views', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('scope_hourly_pk', ['environment', 'scope_id', 'hour'])
    .execute();
  await sql`INSERT INTO scope_hourly (environment, scope_id, hour, views, qr_scans, bot_views)
    SELECT d.environment, coalesce(d.organization_id, d.owner_id), h.hour, sum(h.views), sum(h.qr_scans), sum(h.bot_views)
    FROM tag_hourly h JOIN tag_daily d ON d.tag_id = h.tag_id AND d.day = substr(h.hour, 1, 10)
    GROUP BY d.environment, coalesce(d.organization_id, d.owner_id), h.hour`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scope_hourly').execute();
}
