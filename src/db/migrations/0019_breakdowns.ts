import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { dimensionValues, SCOPE_DIMENSIONS } from '../dimensions.js';

/**
 * More breakdowns (features/analytics/dimensions.ts): views by referring host, operating system,
 * city and the page address's utm_source, utm_medium and utm_campaign, rolled up with the
 * device, country and browser; and per scope by referrer and utm_source, for the overview.
 *
 * views gains the UTM parameters. The records already in the inbox lack them and are ingested
 * with none (view-record.ts). The new breakdowns of the views already stored are worked out
 * from those rows here, so that every breakdown of a period adds up to its views; the UTM
 * parameters of those views were never kept, so they count as `unknown`.
 */
const UTM = ['utm_source', 'utm_medium', 'utm_campaign'] as const;
const NEW_TAG_DIMENSIONS = ['os', 'referrer', 'city', ...UTM] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  for (const column of UTM) await db.schema.alterTable('views').addColumn(column, 'text').execute();

  for (const [table, bucket] of [
    ['scope_daily_dimensions', 'day'],
    ['scope_monthly_dimensions', 'month'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('scope_id', 'text', (c) => c.notNull())
      .addColumn(bucket, 'text', (c) => c.notNull())
      .addColumn('dimension', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['environment', 'scope_id', bucket, 'dimension', 'value'])
      .execute();
  }

  const values = dimensionValues(postgres);
  const rows = (dimensions: readonly string[]) =>
    dimensions
      .map(
        (dimension) => `SELECT tag_id, environment, coalesce(organization_id, owner_id) AS scope_id, substr(occurred_at, 1, 10) AS day,
          substr(occurred_at, 1, 7) || '-01' AS month, '${dimension}' AS dimension, ${values[dimension as keyof typeof values]} AS value
        FROM views`,
      )
      .join(' UNION ALL ');
  const backfill = (table: string, keys: string[], dimensions: readonly string[]) =>
    sql
      .raw(
        `INSERT INTO ${table} (${keys.join(', ')}, views)
        SELECT ${keys.join(', ')}, count(*) FROM (${rows(dimensions)}) v WHERE true GROUP BY ${keys.join(', ')}`,
      )
      .execute(db);
  await backfill('tag_daily_dimensions', ['tag_id', 'day', 'dimension', 'value'], NEW_TAG_DIMENSIONS);
  await backfill('tag_monthly_dimensions', ['tag_id', 'month', 'dimension', 'value'], NEW_TAG_DIMENSIONS);
  await backfill('scope_daily_dimensions', ['environment', 'scope_id', 'day', 'dimension', 'value'], SCOPE_DIMENSIONS);
  await backfill('scope_monthly_dimensions', ['environment', 'scope_id', 'month', 'dimension', 'value'], SCOPE_DIMENSIONS);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scope_monthly_dimensions').execute();
  await db.schema.dropTable('scope_daily_dimensions').execute();
  await sql`DELETE FROM tag_daily_dimensions WHERE dimension NOT IN ('device', 'country', 'browser')`.execute(db);
  await sql`DELETE FROM tag_monthly_dimensions WHERE dimension NOT IN ('device', 'country', 'browser')`.execute(db);
  for (const column of UTM) await db.schema.alterTable('views').dropColumn(column).execute();
}
