import { sql, type Kysely } from 'kysely';

/**
 * scope_day_visitors: a closed day's distinct visitors of an account (or organization) in one
 * environment: the union of its tags' visitor sets of that day (tag_day_visitors), kept by the
 * seal job as it closes each tag-day. The overview counts distinct visitors over any period from
 * these, as the tag report does from the tags' sets.
 *
 * A union cannot lose one tag's visitors, so when a tag is deleted its days' sets are marked
 * `stale`: the overview then unions the remaining tags' sets for those days itself, and the seal
 * job rebuilds them. The sets of the days closed before this table existed start stale, empty.
 *
 * scope_daily.unique_views goes: it summed each tag's daily uniques, which counts a visitor of
 * two tags, or of two days, twice; the overview now counts distinct visitors from these sets.
 * Processes of the previous version must be stopped before this runs (docs/architecture.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scope_day_visitors')
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('visitors', 'text', (c) => c.notNull())
    .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('scope_day_visitors_pk', ['environment', 'scope_id', 'day'])
    .execute();
  // What the seal job looks for every minute: a handful of rows among years of days.
  await sql`CREATE INDEX scope_day_visitors_stale_idx ON scope_day_visitors (day) WHERE stale = 1`.execute(db);
  await sql`INSERT INTO scope_day_visitors (environment, scope_id, day, visitors, stale)
    SELECT DISTINCT d.environment, coalesce(d.organization_id, d.owner_id), s.day, '', 1
    FROM tag_day_visitors s JOIN tag_daily d ON d.tag_id = s.tag_id AND d.day = s.day`.execute(db);
  await db.schema.alterTable('scope_daily').dropColumn('unique_views').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('scope_daily')
    .addColumn('unique_views', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE scope_daily SET unique_views = (SELECT coalesce(sum(d.unique_views), 0) FROM tag_daily d
    WHERE d.environment = scope_daily.environment AND coalesce(d.organization_id, d.owner_id) = scope_daily.scope_id AND d.day = scope_daily.day)`.execute(
    db,
  );
  await db.schema.dropTable('scope_day_visitors').execute();
}
