import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Raw views: one row per counted page view (bots excluded).
  await db.schema
    .createTable('views')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text')
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('visitor', 'text', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('os', 'text', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('region', 'text')
    .addColumn('city', 'text')
    .addColumn('ip_masked', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('referrer', 'text')
    .addColumn('logged', 'integer', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer')
    .execute();
  await db.schema.createIndex('views_tag_time_idx').on('views').columns(['tag_id', 'occurred_at']).execute();
  await db.schema.createIndex('views_time_idx').on('views').column('occurred_at').execute();

  // Per tag and hour: what summaries and time series read instead of raw views.
  await db.schema
    .createTable('tag_hourly')
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('views', 'integer', (c) => c.notNull())
    .addColumn('qr_scans', 'integer', (c) => c.notNull())
    .addColumn('direct_visits', 'integer', (c) => c.notNull())
    .addColumn('duration_sum', 'integer', (c) => c.notNull())
    .addColumn('duration_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_hourly_pk', ['tag_id', 'hour'])
    .execute();

  // Per tag, day, dimension (device, country, browser) and value: the breakdowns.
  await db.schema
    .createTable('tag_daily_dimensions')
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('views', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_daily_dimensions_pk', ['tag_id', 'day', 'dimension', 'value'])
    .execute();

  // Each visitor once per tag and hour: exact unique counts over any period.
  await db.schema
    .createTable('tag_visitor_hours')
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('visitor', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_visitor_hours_pk', ['tag_id', 'hour', 'visitor'])
    .execute();

  // Each visitor once per tag and day: a new row is a new daily unique view.
  await db.schema
    .createTable('tag_visitor_days')
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('visitor', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_visitor_days_pk', ['tag_id', 'day', 'visitor'])
    .execute();

  // Per tag and day with its owner: account-wide overview and top tags without touching hours.
  await db.schema
    .createTable('tag_daily')
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text')
    .addColumn('views', 'integer', (c) => c.notNull())
    .addColumn('qr_scans', 'integer', (c) => c.notNull())
    .addColumn('direct_visits', 'integer', (c) => c.notNull())
    .addColumn('unique_views', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_daily_pk', ['tag_id', 'day'])
    .execute();
  await db.schema
    .createIndex('tag_daily_owner_idx')
    .on('tag_daily')
    .columns(['environment', 'owner_id', 'organization_id', 'day'])
    .execute();
  await db.schema.createIndex('tag_daily_org_idx').on('tag_daily').columns(['environment', 'organization_id', 'day']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['tag_daily', 'tag_visitor_days', 'tag_visitor_hours', 'tag_daily_dimensions', 'tag_hourly', 'views']) {
    await db.schema.dropTable(table).execute();
  }
}
