import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database, Environment, ScopeDailyTable, ScopeHourlyTable, TagDailyTable } from '../../db/schema.js';
import { getOrCreate } from '../../lib/maps.js';

/** Bot requests counted for one tag in one hour (YYYY-MM-DDTHH:00:00Z). */
export interface BotCount {
  tagId: string;
  hour: string;
  requests: number;
}

/**
 * Rows a statement takes at most: tag_daily's twelve columns a row stay far under SQLite's
 * 32,766 bound parameters.
 */
const ROWS_PER_STATEMENT = 1000;

function chunks<T>(rows: T[]): T[][] {
  const parts: T[][] = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) parts.push(rows.slice(at, at + ROWS_PER_STATEMENT));
  return parts;
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Adds bot requests to the tag's hours and days and to its scope's hours and days: an upsert per table,
 * each row created with no views when the bots came first. A tag deleted meanwhile is left out
 * (its rollups went with it). Rows go in key order, the order ingestion writes them in, so the
 * two never deadlock on PostgreSQL; the caller holds the view rollup lock besides
 * (src/db/locks.ts, 2.), which a tag's deletion takes before it deletes the tag's rollups.
 */
export async function addBotViews(trx: Db, counts: BotCount[]): Promise<void> {
  const tagIds = [...new Set(counts.map((count) => count.tagId))];
  const tags = new Map<string, { environment: Environment; owner_id: string; organization_id: string | null }>();
  for (const part of chunks(tagIds)) {
    const rows = await trx
      .selectFrom('tags')
      .select(['id', 'environment', 'owner_id', 'organization_id'])
      .where('id', 'in', part)
      .execute();
    for (const { id, ...owner } of rows) tags.set(id, owner);
  }
  const hourly = counts.filter((count) => tags.has(count.tagId)).sort((a, b) => byKey(a.tagId, b.tagId) || byKey(a.hour, b.hour));
  if (hourly.length === 0) return;
  await addBotRequests(
    trx,
    'tag_hourly',
    ['tag_id', 'hour'],
    hourly.map(({ tagId, hour, requests }) => ({ tag_id: tagId, hour, ...NO_VIEWS, unique_visitors: 0, bot_views: requests })),
  );

  // A day's and a scope-day's rows sum their hours': one row a key per statement.
  const daily = new Map<string, Insertable<TagDailyTable>>();
  const scopeDaily = new Map<string, Insertable<ScopeDailyTable>>();
  const scopeHourly = new Map<string, Insertable<ScopeHourlyTable>>();
  for (const { tagId, hour, requests } of hourly) {
    const tag = tags.get(tagId)!;
    const day = hour.slice(0, 10);
    getOrCreate(daily, `${tagId}|${day}`, () => ({ tag_id: tagId, day, ...tag, ...NO_VIEWS, unique_views: 0, bot_views: 0 })).bot_views! +=
      requests;
    const scope_id = tag.organization_id ?? tag.owner_id;
    getOrCreate(scopeDaily, `${tag.environment}|${scope_id}|${day}`, () => ({
      environment: tag.environment,
      scope_id,
      day,
      views: 0,
      qr_scans: 0,
      bot_views: 0,
    })).bot_views! += requests;
    getOrCreate(scopeHourly, `${tag.environment}|${scope_id}|${hour}`, () => ({
      environment: tag.environment,
      scope_id,
      hour,
      views: 0,
      qr_scans: 0,
      bot_views: 0,
    })).bot_views! += requests;
  }
  await addBotRequests(trx, 'tag_daily', ['tag_id', 'day'], inKeyOrder(daily));
  await addBotRequests(trx, 'scope_hourly', ['environment', 'scope_id', 'hour'], inKeyOrder(scopeHourly));
  await addBotRequests(trx, 'scope_daily', ['environment', 'scope_id', 'day'], inKeyOrder(scopeDaily));
}

/**
 * Upserts a rollup's rows, a chunk a statement, in the order given (key order): a row there
 * already gains the new rows' bot requests, its other counts untouched.
 */
async function addBotRequests<T extends 'tag_hourly' | 'tag_daily' | 'scope_hourly' | 'scope_daily'>(
  trx: Db,
  table: T,
  keys: Array<keyof Database[T] & string>,
  rows: Array<Insertable<Database[T]>>,
): Promise<void> {
  for (const part of chunks(rows)) {
    // Kysely cannot follow a table chosen by a type parameter: the rows and keys are checked above.
    await trx
      .insertInto(table as 'tag_daily')
      .values(part as Array<Insertable<TagDailyTable>>)
      .onConflict((oc) =>
        oc
          .columns(keys as Array<'tag_id' | 'day'>)
          .doUpdateSet({ bot_views: sql<number>`${sql.ref(`${table}.bot_views`)} + excluded.bot_views` }),
      )
      .execute();
  }
}

/** The view counts of a rollup row that bots made first. */
const NO_VIEWS = { views: 0, qr_scans: 0, direct_visits: 0, duration_sum: 0, duration_count: 0 };

/** A map's rows in the order of their keys. */
function inKeyOrder<T>(rows: Map<string, T>): T[] {
  return [...rows].sort(([a], [b]) => byKey(a, b)).map(([, row]) => row);
}
