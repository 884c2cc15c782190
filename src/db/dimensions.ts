import type { Dimension } from './schema.js';

/**
 * The breakdowns views are rolled up by: each view adds one to a value of each dimension, per
 * tag and day (tag_daily_dimensions) and month (tag_monthly_dimensions), and for the overview's
 * dimensions per scope too (scope_daily_dimensions, scope_monthly_dimensions). Reports add up
 * those rows; nothing is counted at read time.
 */
export const TAG_DIMENSIONS = [
  'device',
  'country',
  'browser',
  'os',
  'referrer',
  'city',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const satisfies readonly Dimension[];

/** The account overview's breakdowns. */
export const SCOPE_DIMENSIONS = ['referrer', 'utm_source'] as const satisfies readonly Dimension[];

/** The value a view without one counts under. */
export const UNKNOWN = 'unknown';
/** The referrer of a view that came from no other site. */
export const DIRECT = 'direct';

/**
 * The referring host of a kept referrer (`origin` + path, see tracking.ts's referrerToKeep),
 * without a leading `www.`, in SQL over `column`: what comes after `://` up to the next `/`.
 */
function referrerHost(postgres: boolean, column: string): string {
  const host = postgres
    ? `split_part(split_part(${column}, '://', 2), '/', 1)`
    : `substr(substr(${column}, instr(${column}, '://') + 3), 1, instr(substr(${column}, instr(${column}, '://') + 3) || '/', '/') - 1)`;
  return `CASE WHEN ${host} LIKE 'www.%' THEN substr(${host}, 5) ELSE ${host} END`;
}

/**
 * Each dimension's value of a view, in SQL over the columns of a row of views (or of the
 * ingestion batch, which has the same). A city is keyed with its country ("DE Berlin"): two
 * cities of one name are two places. A view from the page's own site, a QR scan and a visit
 * without a Referer are all `direct`.
 */
export function dimensionValues(postgres: boolean): Record<Dimension, string> {
  return {
    device: 'device',
    country: `coalesce(country, '${UNKNOWN}')`,
    browser: 'browser',
    os: 'os',
    referrer: `CASE WHEN source = 'referral' AND referrer IS NOT NULL THEN ${referrerHost(postgres, 'referrer')} ELSE '${DIRECT}' END`,
    city: `CASE WHEN city IS NULL THEN '${UNKNOWN}' ELSE coalesce(country, '--') || ' ' || city END`,
    utm_source: `coalesce(utm_source, '${UNKNOWN}')`,
    utm_medium: `coalesce(utm_medium, '${UNKNOWN}')`,
    utm_campaign: `coalesce(utm_campaign, '${UNKNOWN}')`,
  };
}

/** A city dimension's value, as dimensionValues keys it, told apart again. */
export function cityOf(value: string): { city: string; country: string | null } {
  const country = value.slice(0, 2);
  return { city: value.slice(3), country: country === '--' ? null : country };
}
