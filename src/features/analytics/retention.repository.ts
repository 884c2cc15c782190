import { setImmediate } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockViewRollup } from '../../db/locks.js';
import { transaction } from '../../db/transaction.js';
import type { Environment } from '../../db/schema.js';
import { monthOf } from './period.js';

/** Analytics older than a plan's history, deleted. */

/**
 * Deletes views and rollups older than `cutoffDay` for accounts on `plan` (personal accounts
 * by their user's plan, organizations by theirs). Returns the raw views deleted. The tags with
 * rows before the cutoff are found first (tagsWithAnalyticsBefore), then each tag's old rows go
 * through indexes that start with the tag: an hourly run that has nothing to delete reads next
 * to nothing. The monthly rollups count: a month outlives the
 * days it holds (it goes once wholly past the cutoff), so a tag whose last old day went in an
 * earlier run is found again through its month.
 */
export async function purgeAnalyticsBefore(db: Db, plan: string, cutoffDay: string): Promise<number> {
  const tags = await tagsWithAnalyticsBefore(db, plan, cutoffDay);
  let views = 0;
  // A scope's own rows (scope_daily) go with the first of its tags, not once per tag.
  const scopesDone = new Set<string>();
  for (const tag of tags) {
    const scope = `${tag.environment}|${tag.scope_id}`;
    views += await purgeTagBefore(db, tag, cutoffDay, !scopesDone.has(scope));
    scopesDone.add(scope);
  }
  return views;
}

// Every environment, or the compiler objects: retention must not skip one that is added later.
const ENVIRONMENTS = Object.keys({ live: true, test: true } satisfies Record<Environment, true>) as Environment[];

/**
 * The tags of `plan`'s scopes with daily rows before `cutoffDay` or monthly rows of months
 * before its month, with their scope. Driven from the plan's users and organizations through
 * the (environment, scope, day) indexes, so a run reads the rows that are due and little else:
 * filtering every rollup row by `day < cutoff` would read all of tag_daily for each plan (the
 * Free plan's 7-day cutoff matches nearly every row), on the thread that serves requests in
 * embedded mode, once an hour, even with nothing to delete.
 */
function tagsWithAnalyticsBefore(db: Db, plan: string, cutoffDay: string) {
  const users = db
    .selectFrom('users')
    .select('id')
    .where('plan', '=', plan as never);
  const organizations = db
    .selectFrom('organizations')
    .select('id')
    .where('plan', '=', plan as never);
  return db
    .selectFrom('tag_daily')
    .select(['tag_id', 'environment', 'owner_id as scope_id'])
    .where('environment', 'in', ENVIRONMENTS)
    .where('owner_id', 'in', users)
    .where('organization_id', 'is', null)
    .where('day', '<', cutoffDay)
    .union(
      db
        .selectFrom('tag_daily')
        .select(['tag_id', 'environment', sql<string>`organization_id`.as('scope_id')])
        .where('environment', 'in', ENVIRONMENTS)
        .where('organization_id', 'in', organizations)
        .where('organization_id', 'is not', null)
        .where('day', '<', cutoffDay),
    )
    .union(
      db
        .selectFrom('tag_monthly')
        .select(['tag_id', 'environment', 'scope_id'])
        .where('environment', 'in', ENVIRONMENTS)
        .where('scope_id', 'in', users.union(organizations))
        .where('month', '<', monthOf(cutoffDay)),
    )
    .execute();
}

async function purgeTagBefore(
  db: Db,
  tag: { tag_id: string; environment: string; scope_id: string },
  cutoffDay: string,
  withScopeRows: boolean,
): Promise<number> {
  const cutoffHour = `${cutoffDay}T00:00:00Z`;
  // A month's rows go once the whole month is past the cutoff: reports read a month's row only
  // when the whole month is in the period, and a period never starts before the cutoff.
  const cutoffMonth = monthOf(cutoffDay);
  const deleted = await deleteInChunks((limit) =>
    db
      .deleteFrom('views')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('views')
          .select('id')
          .where('tag_id', '=', tag.tag_id)
          .where('occurred_at', '<', `${cutoffDay}T00:00:00.000Z`)
          .orderBy('occurred_at')
          .limit(limit),
      )
      .executeTakeFirst(),
  );
  for (const table of ['tag_hourly', 'tag_visitor_hours'] as const)
    await db.deleteFrom(table).where('tag_id', '=', tag.tag_id).where('hour', '<', cutoffHour).execute();
  for (const table of ['tag_visitor_days', 'tag_day_visitors', 'tag_daily_dimensions'] as const)
    await db.deleteFrom(table).where('tag_id', '=', tag.tag_id).where('day', '<', cutoffDay).execute();
  // A month's visitor set goes with its first day: it would still count the gone days' visitors.
  await db.deleteFrom('tag_month_visitors').where('tag_id', '=', tag.tag_id).where('month', '<', cutoffDay).execute();
  await db.deleteFrom('tag_monthly_dimensions').where('tag_id', '=', tag.tag_id).where('month', '<', cutoffMonth).execute();
  const environment = tag.environment as never;
  if (withScopeRows) {
    const scopeRows = [
      ['scope_daily', 'day', cutoffDay],
      ['scope_day_visitors', 'day', cutoffDay],
      // A month's visitor set goes with its first day: it would still count the gone days' visitors.
      ['scope_month_visitors', 'month', cutoffDay],
      ['scope_daily_dimensions', 'day', cutoffDay],
      ['scope_hourly', 'hour', cutoffHour],
      ['scope_monthly_dimensions', 'month', cutoffMonth],
    ] as const;
    for (const [table, column, cutoff] of scopeRows) {
      await sql`DELETE FROM ${sql.table(table)}
        WHERE environment = ${tag.environment} AND scope_id = ${tag.scope_id} AND ${sql.ref(column)} < ${cutoff}`.execute(db);
    }
  }
  // Last: the next run finds the tag again through these rows if this one stops half-way.
  await db
    .deleteFrom('tag_monthly')
    .where('environment', '=', environment)
    .where('scope_id', '=', tag.scope_id)
    .where('month', '<', cutoffMonth)
    .where('tag_id', '=', tag.tag_id)
    .execute();
  await db.deleteFrom('tag_daily').where('tag_id', '=', tag.tag_id).where('day', '<', cutoffDay).execute();
  return deleted;
}

/**
 * Deletes the link clicks before `cutoffDay` of accounts on `plan`; returns how many. Found
 * through the (scope, time) index from the plan's users and organizations, as the views' tags
 * are (tagsWithAnalyticsBefore): a run with nothing due reads next to nothing.
 */
export function purgeClicksBefore(db: Db, plan: string, cutoffDay: string): Promise<number> {
  const scopes = db
    .selectFrom('users')
    .select('id')
    .where('plan', '=', plan as never)
    .union(
      db
        .selectFrom('organizations')
        .select('id')
        .where('plan', '=', plan as never),
    );
  return deleteInChunks((limit) =>
    db
      .deleteFrom('link_clicks')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('link_clicks')
          .select('id')
          .where('scope_id', 'in', scopes)
          .where('occurred_at', '<', `${cutoffDay}T00:00:00.000Z`)
          .limit(limit),
      )
      .executeTakeFirst(),
  );
}

/**
 * Visitor numbers of visitors last seen before `cutoffDay`: no kept visitor set holds them. A
 * number stored on an open row stays (its visitor came back; closing the day moves its last
 * day on): deleted, the visitor would be numbered anew when the day closes, and counted twice
 * meanwhile, by the old number on one open row and by its id on another. Each statement holds
 * the rollup lock (PostgreSQL), under which the rollup reads the numbers it stores.
 */
export function purgeVisitorsBefore(db: Db, cutoffDay: string): Promise<number> {
  return deleteInChunks((limit) =>
    transaction(db, async (trx) => {
      await lockViewRollup(trx);
      return trx
        .deleteFrom('visitors')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('visitors')
            .select('id')
            .where('last_day', '<', cutoffDay)
            .where('id', 'not in', (sub) =>
              sub.selectFrom('tag_visitor_days').select('visitor_number').where('visitor_number', 'is not', null),
            )
            .limit(limit),
        )
        .executeTakeFirst();
    }),
  );
}

/** Rows a retention statement deletes at most: a few milliseconds of the thread. */
const RETENTION_CHUNK = 2000;

/**
 * Runs a delete of up to RETENTION_CHUNK rows until one deletes fewer, giving the thread back
 * between them: a retention run may find millions of rows due (a plan's history shortened),
 * and one statement deleting them all would hold the server (on SQLite, the thread that
 * answers every request) for seconds. Returns the rows deleted.
 */
async function deleteInChunks(deleteChunk: (limit: number) => Promise<{ numDeletedRows: bigint }>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = Number((await deleteChunk(RETENTION_CHUNK)).numDeletedRows);
    total += deleted;
    if (deleted < RETENTION_CHUNK) return total;
    await setImmediate();
  }
}
