import { randomBytes } from 'node:crypto';
import { sql, type ExpressionBuilder } from 'kysely';
import { isPostgres, type Db } from '../../db/database.js';
import { forUpdate } from '../../db/locks.js';
import type { Database, Environment } from '../../db/schema.js';
import { inScope, type Scope } from '../accounts/index.js';
import { ofScopeDays } from './reports.repository.js';
import { monthOf } from './period.js';

/**
 * Distinct visitors: the open rows of days not closed yet, the sets of closed days (tag-days and
 * scope-days), the visitor numbers the sets hold, and the closing (sealing) of a day.
 */

/** The tag's closed days in [from, to): their visitor sets (see visitor-sets.ts). */
export function visitorSets(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_day_visitors')
    .select(['day', 'visitors'])
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .execute();
}

/** A tag-month: the key of a tag's monthly sets (tag_month_visitors); `month` is the month's first day. */
export interface TagMonth {
  tag_id: string;
  month: string;
}

/** The tag's months among the given ones (first days) whose sets are built and not stale, in order, with their revisions. */
export function builtTagMonths(db: Db, tagId: string, months: readonly string[]) {
  return db
    .selectFrom('tag_month_visitors')
    .select(['month', 'revision'])
    .where('tag_id', '=', tagId)
    .where('month', 'in', months)
    .where('stale', '=', 0)
    .orderBy('month')
    .execute();
}

/** The tag's sets of the given months, with their revisions; reports read them only when builtTagMonths lists them. */
export function tagMonthSets(db: Db, tagId: string, months: readonly string[]) {
  return db
    .selectFrom('tag_month_visitors')
    .select(['month', 'visitors', 'revision'])
    .where('tag_id', '=', tagId)
    .where('month', 'in', months)
    .execute();
}

const whereTagMonth = (key: TagMonth) => (eb: ExpressionBuilder<Database, 'tag_month_visitors'>) =>
  eb.and([eb('tag_id', '=', key.tag_id), eb('month', '=', key.month)]);

/**
 * Marks the set of the tag-day's month to be (re)built, creating its row if absent: the day's
 * set changed (or is new). A row already stale is left unwritten (and so is locked, on
 * PostgreSQL, as a written one would be).
 */
export async function markTagMonthStale(trx: Db, tagId: string, day: string): Promise<void> {
  await trx
    .insertInto('tag_month_visitors')
    .values({ tag_id: tagId, month: monthOf(day), visitors: '', stale: 1, revision: newSetRevision() })
    .onConflict((oc) => oc.columns(['tag_id', 'month']).doUpdateSet({ stale: 1 }).where('tag_month_visitors.stale', '=', 0))
    .execute();
}

/** Tag-months before `month` whose sets are to be (re)built, oldest first. */
export function staleTagMonthsBefore(db: Db, month: string, limit: number): Promise<TagMonth[]> {
  return db
    .selectFrom('tag_month_visitors')
    .select(['tag_id', 'month'])
    .where('stale', '=', 1)
    .where('month', '<', month)
    .orderBy('month')
    .limit(limit)
    .execute();
}

/** Whether the tag-month's set is stale, its row locked (PostgreSQL) until the transaction ends; undefined if it has none. */
export async function lockTagMonthSet(trx: Db, key: TagMonth) {
  return forUpdate(trx, trx.selectFrom('tag_month_visitors').select('stale').where(whereTagMonth(key))).executeTakeFirst();
}

/** Stores the tag-month's built set and clears its stale mark. */
export async function saveTagMonthSet(trx: Db, key: TagMonth, visitors: string): Promise<void> {
  await trx.updateTable('tag_month_visitors').set({ visitors, stale: 0, revision: newSetRevision() }).where(whereTagMonth(key)).execute();
}

export async function deleteTagMonthSet(trx: Db, key: TagMonth): Promise<void> {
  await trx.deleteFrom('tag_month_visitors').where(whereTagMonth(key)).execute();
}

/**
 * An open row's visitor number: the one stored with it, else the visitor's current one, if any
 * (numbered after the row was written, by the closing of another tag-day). Only rows without a
 * stored number are looked up in `visitors`: most of a year's overview went into looking every
 * one up (COALESCE evaluates the lookup only when the stored number is null, on both databases).
 */
const openRowNumber = (row: 'o' | 'd') => {
  const stored = sql.ref(`${row}.visitor_number`);
  const key = sql.ref(`${row}.visitor`);
  return sql<number | string | null>`coalesce(${stored}, (SELECT v.id FROM visitors v WHERE v.key = ${key}))`.as('number');
};

/** The tag's visitors on days not closed yet, with their number when they have one. */
export function openVisitorDays(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_visitor_days as d')
    .select(['d.day', 'd.visitor', openRowNumber('d')])
    .where('d.tag_id', '=', tagId)
    .where('d.day', '>=', days.from)
    .where('d.day', '<', days.to)
    .execute();
}

/**
 * A new revision for a set being written (scope_day_visitors and scope_month_visitors, migration
 * 0031; tag_month_visitors, 0033): random, so a set deleted and written again never repeats a
 * revision a process may have kept (perf/revision-cache.ts).
 */
export const newSetRevision = (): string => randomBytes(6).toString('hex');

/** A scope-day: the key of a scope's daily rows. */
export interface ScopeDay {
  environment: Environment;
  scope_id: string;
  day: string;
}

/** The scope a scope_id stands for: organization and user ids have their own prefixes. */
export function scopeFromId(environment: Environment, scopeId: string): Scope {
  return scopeId.startsWith('org_')
    ? { environment, userId: '', organizationId: scopeId }
    : { environment, userId: scopeId, organizationId: null };
}

const whereScopeDay = (key: ScopeDay) => (eb: ExpressionBuilder<Database, 'scope_day_visitors'>) =>
  eb.and([eb('environment', '=', key.environment), eb('scope_id', '=', key.scope_id), eb('day', '=', key.day)]);

/** The scope-day's visitor set, its row locked (PostgreSQL) until the transaction ends; undefined if it has none. */
export async function lockScopeDaySet(trx: Db, key: ScopeDay) {
  let query = trx.selectFrom('scope_day_visitors').select(['visitors', 'stale']).where(whereScopeDay(key));
  query = forUpdate(trx, query);
  return query.executeTakeFirst();
}

/**
 * The scope-day's set, its row created empty if absent and locked (PostgreSQL) either way: one
 * upsert, so a rebuild that deletes the row meanwhile cannot leave it missing.
 */
export function ensureScopeDaySet(trx: Db, key: ScopeDay) {
  return trx
    .insertInto('scope_day_visitors')
    .values({ ...key, visitors: '', revision: newSetRevision() })
    .onConflict((oc) => oc.columns(['environment', 'scope_id', 'day']).doUpdateSet({ visitors: sql`scope_day_visitors.visitors` }))
    .returning(['visitors', 'stale'])
    .executeTakeFirstOrThrow();
}

/** Stores the scope-day's set; `rebuilt` clears its stale mark (the set was made from its tags' sets). */
export async function saveScopeDaySet(trx: Db, key: ScopeDay, visitors: string, rebuilt: boolean): Promise<void> {
  await trx
    .updateTable('scope_day_visitors')
    .set({ visitors, revision: newSetRevision(), ...(rebuilt ? { stale: 0 } : {}) })
    .where(whereScopeDay(key))
    .execute();
}

export async function deleteScopeDaySet(trx: Db, key: ScopeDay): Promise<void> {
  await trx.deleteFrom('scope_day_visitors').where(whereScopeDay(key)).execute();
}

/** Scope-days whose sets must be rebuilt from their tags' sets, oldest first. */
export function staleScopeDays(db: Db, limit: number): Promise<ScopeDay[]> {
  return db
    .selectFrom('scope_day_visitors')
    .select(['environment', 'scope_id', 'day'])
    .where('stale', '=', 1)
    .orderBy('day')
    .limit(limit)
    .execute();
}

/** The scope's days in [from, to) with sets: their revisions and stale marks, not the sets. */
export function scopeDaySetRevisions(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db.selectFrom('scope_day_visitors').select(['day', 'revision', 'stale']).where(ofScopeDays(scope, days)).execute();
}

/** The scope's sets of the given days, with their revisions. */
export function scopeDaySetsOn(db: Db, scope: Scope, days: readonly string[]) {
  return db
    .selectFrom('scope_day_visitors')
    .select(['day', 'visitors', 'revision'])
    .where('environment', '=', scope.environment)
    .where('scope_id', '=', scope.organizationId ?? scope.userId)
    .where('day', 'in', days)
    .execute();
}

/** The scope's months in [from, to) (first days) whose sets are built and not stale, with their revisions. */
export function builtScopeMonths(db: Db, scope: Scope, months: { from: string; to: string }) {
  return db
    .selectFrom('scope_month_visitors')
    .select(['month', 'revision'])
    .where('environment', '=', scope.environment)
    .where('scope_id', '=', scope.organizationId ?? scope.userId)
    .where('month', '>=', months.from)
    .where('month', '<', months.to)
    .where('stale', '=', 0)
    .orderBy('month')
    .execute();
}

/** A scope-month: the key of a scope's monthly sets; `month` is the month's first day. */
export interface ScopeMonth {
  environment: Environment;
  scope_id: string;
  month: string;
}

const whereScopeMonth = (key: ScopeMonth) => (eb: ExpressionBuilder<Database, 'scope_month_visitors'>) =>
  eb.and([eb('environment', '=', key.environment), eb('scope_id', '=', key.scope_id), eb('month', '=', key.month)]);

/** The scope's set of a month (its first day), with its revision; reports read it only when builtScopeMonths lists it. */
export function scopeMonthSet(db: Db, scope: Scope, month: string) {
  const key = { environment: scope.environment, scope_id: scope.organizationId ?? scope.userId, month };
  return db.selectFrom('scope_month_visitors').select(['visitors', 'revision']).where(whereScopeMonth(key)).execute();
}

/**
 * Marks the set of the scope-day's month to be (re)built, creating its row if absent: the day's
 * set changed (or is new), so the month's no longer holds all of its visitors.
 */
export async function markScopeMonthStale(trx: Db, key: ScopeDay): Promise<void> {
  await trx
    .insertInto('scope_month_visitors')
    .values({
      environment: key.environment,
      scope_id: key.scope_id,
      month: monthOf(key.day),
      visitors: '',
      stale: 1,
      revision: newSetRevision(),
    })
    .onConflict((oc) => oc.columns(['environment', 'scope_id', 'month']).doUpdateSet({ stale: 1 }))
    .execute();
}

/** Scope-months before `month` whose sets are to be (re)built, oldest first. */
export function staleScopeMonthsBefore(db: Db, month: string, limit: number): Promise<ScopeMonth[]> {
  return db
    .selectFrom('scope_month_visitors')
    .select(['environment', 'scope_id', 'month'])
    .where('stale', '=', 1)
    .where('month', '<', month)
    .orderBy('month')
    .limit(limit)
    .execute();
}

/** Whether the scope-month's set is stale, its row locked (PostgreSQL) until the transaction ends; undefined if it has none. */
export async function lockScopeMonthSet(trx: Db, key: ScopeMonth) {
  let query = trx.selectFrom('scope_month_visitors').select('stale').where(whereScopeMonth(key));
  query = forUpdate(trx, query);
  return query.executeTakeFirst();
}

/** Stores the scope-month's built set and clears its stale mark. */
export async function saveScopeMonthSet(trx: Db, key: ScopeMonth, visitors: string): Promise<void> {
  await trx
    .updateTable('scope_month_visitors')
    .set({ visitors, stale: 0, revision: newSetRevision() })
    .where(whereScopeMonth(key))
    .execute();
}

export async function deleteScopeMonthSet(trx: Db, key: ScopeMonth): Promise<void> {
  await trx.deleteFrom('scope_month_visitors').where(whereScopeMonth(key)).execute();
}

/** The visitor sets of the scope's tags on the given closed days. */
export function tagSetsOfScopeDays(db: Db, scope: Scope, days: string[]) {
  return db
    .selectFrom('tag_day_visitors as s')
    .innerJoin('tag_daily as d', (join) => join.onRef('d.tag_id', '=', 's.tag_id').onRef('d.day', '=', 's.day'))
    .select('s.visitors')
    .where(inScope(scope, 'd'))
    .where('d.day', 'in', days)
    .execute();
}

/**
 * The visitors of the scope's tags on days [from, to) not closed yet, joined by commas in one
 * text: each one's number where it has one, else its id after a `~` (ids are base64url); a
 * tag-day's visitor once, a visitor as often as their tag-days. One row, not one a tag-day's
 * visitor: a large account's day is some 30,000 of those, and their row objects cost more than
 * the rest of a year's overview. One aggregate reads the number once (two would look each
 * unnumbered visitor up twice). Driven by the open rows (a day or two of them) and their tags,
 * not by the scope's days: over a year that would probe every tag-day of the scope.
 */
export async function openScopeVisitors(db: Db, scope: Scope, days: { from: string; to: string }): Promise<string | null> {
  const entry = sql`coalesce(CAST(r.number AS text), '~' || r.visitor)`;
  const rows = db
    .selectFrom('tag_visitor_days as o')
    .innerJoin('tags as t', 't.id', 'o.tag_id')
    .select(['o.visitor', openRowNumber('o')])
    .where(inScope(scope, 't'))
    .where('o.day', '>=', days.from)
    .where('o.day', '<', days.to);
  const joined = isPostgres(db) ? sql<string | null>`string_agg(${entry}, ',')` : sql<string | null>`group_concat(${entry}, ',')`;
  const { visitors } = await db.selectFrom(rows.as('r')).select(joined.as('visitors')).executeTakeFirstOrThrow();
  return visitors;
}

/**
 * Tag-days with visitor rows on days before `day`, with their scope (none if their daily row is
 * missing, which the rollup never leaves): what the seal job closes next.
 */
export function openTagDaysBefore(db: Db, day: string, limit: number) {
  return db
    .selectFrom('tag_visitor_days as o')
    .leftJoin('tag_daily as d', (join) => join.onRef('d.tag_id', '=', 'o.tag_id').onRef('d.day', '=', 'o.day'))
    .select(['o.tag_id', 'o.day', 'd.environment', sql<string>`coalesce(d.organization_id, d.owner_id)`.as('scope_id')])
    .distinct()
    .where('o.day', '<', day)
    .orderBy('o.day')
    .orderBy('o.tag_id')
    .limit(limit)
    .execute();
}

/**
 * Locks the tag-day's rollup row (a no-op update: a row lock on PostgreSQL, the write lock on
 * SQLite), so that view recording and other sealers of that tag-day wait, and returns it.
 */
export async function lockTagDay(trx: Db, tagId: string, day: string) {
  await trx
    .updateTable('tag_daily')
    .set((eb) => ({ unique_views: eb.ref('unique_views') }))
    .where('tag_id', '=', tagId)
    .where('day', '=', day)
    .execute();
  return trx
    .selectFrom('tag_daily')
    .select(['environment', 'owner_id', 'organization_id', 'unique_views'])
    .where('tag_id', '=', tagId)
    .where('day', '=', day)
    .executeTakeFirst();
}

export async function openDayVisitorKeys(trx: Db, tagId: string, day: string): Promise<string[]> {
  const rows = await trx.selectFrom('tag_visitor_days').select('visitor').where('tag_id', '=', tagId).where('day', '=', day).execute();
  return rows.map((r) => r.visitor);
}

const KEYS_PER_STATEMENT = 500;

/** The number of each visitor id, numbering those new to the table; `day` moves their last day on. */
export async function numberVisitors(trx: Db, keys: string[], day: string): Promise<Map<string, number>> {
  // One order for every sealer: concurrent upserts of shared visitors then wait, never deadlock.
  keys = [...new Set(keys)].sort();
  const numbers = new Map<string, number>();
  for (let i = 0; i < keys.length; i += KEYS_PER_STATEMENT) {
    const rows = await trx
      .insertInto('visitors')
      .values(keys.slice(i, i + KEYS_PER_STATEMENT).map((key) => ({ key, last_day: day })))
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          last_day: sql`CASE WHEN excluded.last_day > visitors.last_day THEN excluded.last_day ELSE visitors.last_day END`,
        }),
      )
      .returning(['id', 'key'])
      .execute();
    for (const row of rows) numbers.set(row.key, Number(row.id));
  }
  return numbers;
}

export async function storedVisitorSet(trx: Db, tagId: string, day: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('tag_day_visitors')
    .select('visitors')
    .where('tag_id', '=', tagId)
    .where('day', '=', day)
    .executeTakeFirst();
  return row?.visitors;
}

export async function saveVisitorSet(trx: Db, tagId: string, day: string, visitors: string): Promise<void> {
  await trx
    .insertInto('tag_day_visitors')
    .values({ tag_id: tagId, day, visitors })
    .onConflict((oc) => oc.columns(['tag_id', 'day']).doUpdateSet({ visitors }))
    .execute();
}

/** Sets a tag-day's distinct visitors to the sealed count. */
export async function setDayUniques(trx: Db, tagId: string, day: string, count: number): Promise<void> {
  await trx.updateTable('tag_daily').set({ unique_views: count }).where('tag_id', '=', tagId).where('day', '=', day).execute();
}

export async function deleteOpenDay(trx: Db, tagId: string, day: string): Promise<void> {
  await trx.deleteFrom('tag_visitor_days').where('tag_id', '=', tagId).where('day', '=', day).execute();
}

/** Per-hour visitor rows only serve to count an hour's new visitors while views arrive in it. */
export async function deleteVisitorHoursBefore(db: Db, hour: string): Promise<void> {
  await db.deleteFrom('tag_visitor_hours').where('hour', '<', hour).execute();
}
