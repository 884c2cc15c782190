import type { ViewsTable } from '../../db/schema.js';

/** A view as its page records it: everything but what it takes from its tag when ingested. */
export type RecordedView = Omit<ViewsTable, 'environment' | 'owner_id' | 'organization_id'>;

/**
 * A record's fields, in order. A record is a JSON array, not an object: a third of the bytes,
 * and one JSON.stringify on the request instead of a bound parameter per column (a bound
 * parameter costs more than the whole serialization). The database unpacks it by position when
 * it ingests the inbox (ingestion.repository.ts). Migration 0015 writes records in this order
 * too: a change here needs a migration that rewrites the inbox, except a field added at the end,
 * which the records written before it lack and read as null (migration 0019's UTM parameters).
 */
export const RECORD_FIELDS = [
  'id',
  'tag_id',
  'occurred_at',
  'source',
  'visitor',
  'device',
  'browser',
  'os',
  'country',
  'region',
  'city',
  'ip_masked',
  'user_agent',
  'referrer',
  'logged',
  'duration_seconds',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const satisfies ReadonlyArray<keyof RecordedView>;

/** The fields that are numbers; the others are text or null. */
export const NUMERIC_FIELDS: ReadonlySet<string> = new Set(['logged', 'duration_seconds']);

/** The view's record. */
export function encodeView(view: RecordedView): string {
  return JSON.stringify(RECORD_FIELDS.map((field) => view[field]));
}
