import { MONTHLY_ROLLUPS_FROM_DAILY } from '../../src/db/migrations/0006_analytics_scale.js';
import type { DayRows } from './day.js';

/**
 * The columns the generator writes, in the order of its row arrays, with their PostgreSQL
 * types for the unnest() casts. They mirror src/db/migrations (0005, 0006, 0009, 0013, 0019, 0029, 0031, 0033); a column
 * added there without a default makes the inserts fail loudly, which is the point.
 */
export const TABLES: Record<keyof DayRows, Array<[name: string, pgType: 'text' | 'int']>> = {
  views: [
    ['id', 'text'],
    ['tag_id', 'text'],
    ['environment', 'text'],
    ['owner_id', 'text'],
    ['organization_id', 'text'],
    ['occurred_at', 'text'],
    ['source', 'text'],
    ['visitor', 'text'],
    ['device', 'text'],
    ['browser', 'text'],
    ['os', 'text'],
    ['country', 'text'],
    ['region', 'text'],
    ['city', 'text'],
    ['ip_masked', 'text'],
    ['user_agent', 'text'],
    ['referrer', 'text'],
    ['logged', 'int'],
    ['duration_seconds', 'int'],
    ['utm_source', 'text'],
    ['utm_medium', 'text'],
    ['utm_campaign', 'text'],
  ],
  tag_hourly: [
    ['tag_id', 'text'],
    ['hour', 'text'],
    ['views', 'int'],
    ['qr_scans', 'int'],
    ['direct_visits', 'int'],
    ['duration_sum', 'int'],
    ['duration_count', 'int'],
    ['unique_visitors', 'int'],
  ],
  tag_daily: [
    ['tag_id', 'text'],
    ['day', 'text'],
    ['environment', 'text'],
    ['owner_id', 'text'],
    ['organization_id', 'text'],
    ['views', 'int'],
    ['qr_scans', 'int'],
    ['direct_visits', 'int'],
    ['unique_views', 'int'],
    ['duration_sum', 'int'],
    ['duration_count', 'int'],
  ],
  tag_daily_dimensions: [
    ['tag_id', 'text'],
    ['day', 'text'],
    ['dimension', 'text'],
    ['value', 'text'],
    ['views', 'int'],
  ],
  scope_daily_dimensions: [
    ['environment', 'text'],
    ['scope_id', 'text'],
    ['day', 'text'],
    ['dimension', 'text'],
    ['value', 'text'],
    ['views', 'int'],
  ],
  tag_visitor_hours: [
    ['tag_id', 'text'],
    ['hour', 'text'],
    ['visitor', 'text'],
  ],
  tag_visitor_days: [
    ['tag_id', 'text'],
    ['day', 'text'],
    ['visitor', 'text'],
    ['visitor_number', 'int'],
  ],
  tag_day_visitors: [
    ['tag_id', 'text'],
    ['day', 'text'],
    ['visitors', 'text'],
  ],
  scope_day_visitors: [
    ['environment', 'text'],
    ['scope_id', 'text'],
    ['day', 'text'],
    ['visitors', 'text'],
    ['revision', 'text'],
  ],
  scope_month_visitors: [
    ['environment', 'text'],
    ['scope_id', 'text'],
    ['month', 'text'],
    ['visitors', 'text'],
    ['stale', 'int'],
    ['revision', 'text'],
  ],
  tag_month_visitors: [
    ['tag_id', 'text'],
    ['month', 'text'],
    ['visitors', 'text'],
    ['stale', 'int'],
    ['revision', 'text'],
  ],
  visitors: [
    ['id', 'int'],
    ['key', 'text'],
    ['last_day', 'text'],
  ],
};

export const TABLE_NAMES = Object.keys(TABLES) as Array<keyof DayRows>;

/**
 * The rollups the service keeps besides the daily ones, filled from them once every day is
 * in, as migrations 0006, 0009 and 0019 would (one statement each instead of an update a view).
 */
export const ROLLUPS_FROM_DAILY = [
  `INSERT INTO scope_daily (environment, scope_id, day, views, qr_scans)
     SELECT environment, coalesce(organization_id, owner_id), day, sum(views), sum(qr_scans)
     FROM tag_daily GROUP BY environment, coalesce(organization_id, owner_id), day`,
  ...MONTHLY_ROLLUPS_FROM_DAILY,
  `INSERT INTO scope_monthly_dimensions (environment, scope_id, month, dimension, value, views)
     SELECT environment, scope_id, substr(day, 1, 7) || '-01', dimension, value, sum(views)
     FROM scope_daily_dimensions GROUP BY environment, scope_id, substr(day, 1, 7) || '-01', dimension, value`,
];

/** A tag's owner columns, read back after the tags were made through the API. */
export interface TagOwner {
  id: string;
  short_id: string;
  environment: string;
  owner_id: string;
  organization_id: string | null;
}

/** Where generated rows go: one transaction per day. */
export interface Sink {
  readTags(ids: string[]): Promise<TagOwner[]>;
  /** Views already stored for these tags (a dataset is generated into empty tables only). */
  countViews(): Promise<number>;
  /** Inserts the rows of each table given, in one transaction. */
  write(rows: Partial<DayRows>): Promise<void>;
  /** Leaves the database as the service expects it (journal mode, statistics). */
  finish(): Promise<void>;
  close(): Promise<void>;
}
