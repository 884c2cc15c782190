import { setImmediate } from 'node:timers/promises';
import { CompiledQuery, sql, type ExpressionBuilder } from 'kysely';
import { isPostgres, type Db } from '../../db/database.js';
import { forUpdate, lockTagRow, lockViewRollup } from '../../db/locks.js';
import { transaction } from '../../db/transaction.js';
import type { Database, Environment, ViewsTable } from '../../db/schema.js';
import { inScope, type Scope } from '../accounts/index.js';
import { preparedOnPostgres } from '../../perf/pg-prepared-statements.js';
import { monthOf } from './period.js';
import { NUMERIC_FIELDS, RECORD_FIELDS } from './view-record.js';

/** All SQL for views and their rollups. */

/**
 * Appends a group of view records (view-record.ts), given as one JSON array, to the inbox: one
 * row for the group, one statement of two parameters whatever its size, atomic by itself. The
 * array is kept as binary JSON (SQLite's JSONB, PostgreSQL's jsonb): parsed once, here, so that
 * ingestion reads a field by its offset instead of parsing the text again. One row a group
 * rather than one a view: on PostgreSQL a view then costs the database 4.5 µs less to append
 * and 3 less to take out (groups of 30 measured), the per-row costs (tuple, index entry,
 * deletion) being paid once a group.
 */
export async function appendToInbox(db: Db, records: string, views: number): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(isPostgres(db) ? APPEND_POSTGRES : APPEND_SQLITE, [records, views]));
}

const APPEND_POSTGRES = preparedOnPostgres('INSERT INTO view_inbox (records, views) VALUES ($1::jsonb, $2)');
const APPEND_SQLITE = 'INSERT INTO view_inbox (records, views) VALUES (jsonb(?), ?)';

export async function countInboxViews(db: Db): Promise<number> {
  const { count } = await db
    .selectFrom('view_inbox')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('views'), eb.lit(0)).as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Through the sequence's index: the inbox's rows come and go by the thousand, and PostgreSQL
 * finds a live one by scanning its heap past every row deleted since the last vacuum (39 ms a
 * look measured under page traffic, against well under one through the index).
 */
export async function anyInboxView(db: Db): Promise<boolean> {
  return (await db.selectFrom('view_inbox').select('seq').orderBy('seq').limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Vacuums the inbox (PostgreSQL only: SQLite frees a deleted row's space at once). Its rows come
 * and go by the thousand, and each leaves a dead tuple that slows every look for the oldest
 * records until a vacuum clears it; autovacuum comes at most once a minute, if it is on at all.
 * SKIP_LOCKED: a vacuum already under way (another process's, autovacuum's) does the job.
 */
export async function vacuumInbox(db: Db): Promise<void> {
  await db.executeQuery(CompiledQuery.raw('VACUUM (SKIP_LOCKED) view_inbox'));
}

/*
 * Ingestion works on a batch: the oldest records of the inbox, unpacked once into a temporary
 * table of the connection (ingest_batch) with what each view takes from its tag and its
 * buckets. Every step then reads that table inside the database: the views rows, the rollups
 * (grouped there, not view by view in JavaScript) and the visitor sets. Only what the events
 * need crosses into JavaScript, and only for scopes whose webhooks take view events.
 */
const BATCH_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  // The view's group (the inbox row) and its place in the group: together, its arrival order.
  ['seq', 'bigint'],
  ['n', 'integer'],
  ...RECORD_FIELDS.map((field) => [field, NUMERIC_FIELDS.has(field) ? 'integer' : 'text'] as const),
  ['environment', 'text'],
  ['owner_id', 'text'],
  ['organization_id', 'text'],
  ['scope_id', 'text'],
  ['short_id', 'text'],
  ['title', 'text'],
  ['hour', 'text'],
  ['day', 'text'],
  ['month', 'text'],
];

// The batch's views counted by tag, day and the three dimensions: the rollups without unique
// counts read these few rows instead of grouping the whole batch once each.
const CELL_COLUMNS = ['tag_id', 'environment', 'scope_id', 'day', 'month', 'device', 'country', 'browser'];
// A view of no known country counts under "unknown" in the breakdowns.
const CELL_VALUES = CELL_COLUMNS.map((c) => (c === 'country' ? "coalesce(country, 'unknown')" : c)).join(', ');

/**
 * The connection's two temporary tables, emptied for a new batch. PostgreSQL empties them at
 * every commit too, in place: its DELETEs leave dead rows that no vacuum of a temporary table
 * would ever reclaim, so without that they would grow for as long as the connection lives.
 */
function prepareBatch(postgres: boolean): CompiledQuery[] {
  const onCommit = postgres ? ' ON COMMIT DELETE ROWS' : '';
  return [
    `CREATE TEMP TABLE IF NOT EXISTS ingest_batch (${BATCH_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')})${onCommit}`,
    `CREATE TEMP TABLE IF NOT EXISTS ingest_cells (${CELL_COLUMNS.map((name) => `${name} text`).join(', ')}, views integer, qr_scans integer)${onCommit}`,
    'DELETE FROM ingest_batch',
    'DELETE FROM ingest_cells',
  ].map((text) => CompiledQuery.raw(text));
}

const PREPARE_BATCH = { postgres: prepareBatch(true), sqlite: prepareBatch(false) };

/**
 * The batch's rows from the records `source` names (columns seq, n and record: one a view), their
 * tags joined. The hour, day and month are period.ts's hourOf, dayOf and monthOf, written in SQL.
 */
function fillBatch(postgres: boolean, source: string): string {
  const field = (name: string, i: number) =>
    postgres && NUMERIC_FIELDS.has(name) ? `(i.record->>${i})::integer AS ${name}` : `i.record->>${i} AS ${name}`;
  return `INSERT INTO ingest_batch (${BATCH_COLUMNS.map(([name]) => name).join(', ')})
    SELECT r.*, t.environment, t.owner_id, t.organization_id, coalesce(t.organization_id, t.owner_id), t.short_id, t.title,
      substr(r.occurred_at, 1, 13) || ':00:00Z', substr(r.occurred_at, 1, 10), substr(r.occurred_at, 1, 7) || '-01'
    FROM (SELECT i.seq, i.n, ${RECORD_FIELDS.map(field).join(', ')} FROM ${source} i) r
    LEFT JOIN tags t ON t.id = r.tag_id`;
}

/**
 * The oldest groups of the inbox, as many as hold fewer than `limit` views before them: a batch
 * takes at least one group, and at most `limit` views plus one group's. Each group counts at
 * least one view, so the first `limit` rows always suffice.
 */
const OLDEST_GROUPS = (limit: string) => `SELECT seq FROM (
    SELECT seq, sum(views) OVER (ORDER BY seq) - views AS before FROM view_inbox ORDER BY seq LIMIT ${limit}
  ) oldest WHERE before < ${limit}`;

const TAKE_POSTGRES = `WITH taken AS (DELETE FROM view_inbox WHERE seq IN (${OLDEST_GROUPS('$1')}) RETURNING seq, records)
  ${fillBatch(true, '(SELECT g.seq, e.n, e.value AS record FROM taken g, jsonb_array_elements(g.records) WITH ORDINALITY AS e(value, n))')}`;
const TAKE_SQLITE = fillBatch(
  false,
  `(SELECT g.seq, e.key AS n, e.value AS record FROM view_inbox g, jsonb_each(g.records) AS e WHERE g.seq IN (${OLDEST_GROUPS('?')}))`,
);

/**
 * Takes the oldest groups out of the inbox into the batch, about `limit` views; returns how many
 * views. A record whose tag is gone (answered while its tag was being deleted) leaves the inbox
 * and goes, as the tag's other views did. On PostgreSQL one statement deletes exactly the groups
 * it copies, whatever commits meanwhile; SQLite's transaction holds the file's one write lock,
 * so the groups up to the last one copied are the ones copied.
 */
export async function takeInboxBatch(trx: Db, limit: number): Promise<number> {
  const postgres = isPostgres(trx);
  for (const statement of PREPARE_BATCH[postgres ? 'postgres' : 'sqlite']) await trx.executeQuery(statement);
  const taken = await trx.executeQuery(CompiledQuery.raw(postgres ? TAKE_POSTGRES : TAKE_SQLITE, postgres ? [limit] : [limit, limit]));
  if (!postgres) await trx.executeQuery(CompiledQuery.raw('DELETE FROM view_inbox WHERE seq <= (SELECT max(seq) FROM ingest_batch)'));
  await trx.executeQuery(CompiledQuery.raw('DELETE FROM ingest_batch WHERE environment IS NULL'));
  return Number(taken.numAffectedRows ?? 0);
}

const counted = (condition: string) => `sum(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
/**
 * The batch's views, each with how many of its tag's distinct visitors in its bucket `table`
 * does not hold yet (n.visitors): one look-up per distinct visitor, not per view, for a
 * visitor's views come in runs. The look-up is a scalar subquery, a probe of `table`'s key per
 * visitor: PostgreSQL may run an EXISTS as one hash of the whole table instead, which it
 * thinks cheaper knowing nothing of a temporary table's rows, and which costs every batch a
 * scan of all open visitor rows (10 ms a batch over the bench's 22,000, most of the batch's
 * time in this rollup).
 */
const withNewVisitors = (table: string, bucket: string) => `ingest_batch b LEFT JOIN (
    SELECT d.tag_id, d.${bucket}, sum(CASE WHEN (SELECT 1 FROM ${table} v
        WHERE v.tag_id = d.tag_id AND v.${bucket} = d.${bucket} AND v.visitor = d.visitor) IS NULL THEN 1 ELSE 0 END) AS visitors
    FROM (SELECT DISTINCT tag_id, ${bucket}, visitor FROM ingest_batch) d GROUP BY d.tag_id, d.${bucket}
  ) n ON n.tag_id = b.tag_id AND n.${bucket} = b.${bucket}`;
/** The new visitors of a group of withNewVisitors' rows: the same on each of its rows. */
const NEW_VISITORS = 'coalesce(max(n.visitors), 0)';

/**
 * Adds the batch's groups to a rollup: INSERT … ON CONFLICT DO UPDATE adding the counts. Rows go
 * in key order, so concurrent writers (several server processes on one PostgreSQL) lock them
 * in the same order and never deadlock. (SQLite wants a WHERE before an upsert's GROUP BY.)
 */
function rollUp(table: string, keys: string[], fixed: string[], counts: Array<[string, string]>, from = 'ingest_batch b'): string {
  const groups = [...keys, ...fixed];
  return `INSERT INTO ${table} (${[...groups, ...counts.map(([name]) => name)].join(', ')})
    SELECT ${[...groups.map((c) => `b.${c}`), ...counts.map(([, value]) => value)].join(', ')}
    FROM ${from} WHERE true GROUP BY ${groups.map((c) => `b.${c}`).join(', ')} ORDER BY ${keys.map((c) => `b.${c}`).join(', ')}
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${counts.map(([name]) => `${name} = ${table}.${name} + excluded.${name}`).join(', ')}`;
}

const DIMENSIONS = `(SELECT tag_id, day, month, 'device' AS dimension, device AS value, views FROM ingest_cells
  UNION ALL SELECT tag_id, day, month, 'country', country, views FROM ingest_cells
  UNION ALL SELECT tag_id, day, month, 'browser', browser, views FROM ingest_cells) b`;

const VIEW_COUNTS: Array<[string, string]> = [
  ['views', 'count(*)'],
  ['qr_scans', counted("b.source = 'qr_scan'")],
  ['direct_visits', counted("b.source = 'direct'")],
  ['duration_sum', 'coalesce(sum(b.duration_seconds), 0)'],
  ['duration_count', 'count(b.duration_seconds)'],
];

/** In this order: the unique counts compare the batch's visitors with the sets before these take them in. */
const STORE_BATCH = [
  `INSERT INTO views (environment, owner_id, organization_id, ${RECORD_FIELDS.join(', ')})
    SELECT environment, owner_id, organization_id, ${RECORD_FIELDS.join(', ')} FROM ingest_batch ORDER BY seq, n`,
  rollUp(
    'tag_hourly',
    ['tag_id', 'hour'],
    [],
    [...VIEW_COUNTS, ['unique_visitors', NEW_VISITORS]],
    withNewVisitors('tag_visitor_hours', 'hour'),
  ),
  rollUp(
    'tag_daily',
    ['tag_id', 'day'],
    ['environment', 'owner_id', 'organization_id'],
    [...VIEW_COUNTS, ['unique_views', NEW_VISITORS]],
    withNewVisitors('tag_visitor_days', 'day'),
  ),
  `INSERT INTO ingest_cells (${CELL_COLUMNS.join(', ')}, views, qr_scans)
    SELECT ${CELL_VALUES}, count(*), ${counted("source = 'qr_scan'")} FROM ingest_batch GROUP BY ${CELL_VALUES}`,
  rollUp(
    'scope_daily',
    ['environment', 'scope_id', 'day'],
    [],
    [
      ['views', 'sum(b.views)'],
      ['qr_scans', 'sum(b.qr_scans)'],
    ],
    'ingest_cells b',
  ),
  rollUp('tag_monthly', ['environment', 'scope_id', 'month', 'tag_id'], [], [['views', 'sum(b.views)']], 'ingest_cells b'),
  rollUp('tag_daily_dimensions', ['tag_id', 'day', 'dimension', 'value'], [], [['views', 'sum(b.views)']], DIMENSIONS),
  rollUp('tag_monthly_dimensions', ['tag_id', 'month', 'dimension', 'value'], [], [['views', 'sum(b.views)']], DIMENSIONS),
  `INSERT INTO tag_visitor_hours (tag_id, hour, visitor)
    SELECT DISTINCT tag_id, hour, visitor FROM ingest_batch WHERE true ORDER BY tag_id, hour, visitor ON CONFLICT DO NOTHING`,
  // With the visitor's number where it has one: reports then look up only the open rows'
  // visitors numbered since (openScopeVisitorDays). Read under the rollup lock, which the
  // visitor purge takes too: a number stored is never one the purge deletes meanwhile.
  // Looked up row by row through the key's index: a join would let PostgreSQL, which knows
  // nothing of a temporary table's rows, scan all of visitors for each batch.
  `INSERT INTO tag_visitor_days (tag_id, day, visitor, visitor_number)
    SELECT d.tag_id, d.day, d.visitor, (SELECT n.id FROM visitors n WHERE n.key = d.visitor)
    FROM (SELECT DISTINCT tag_id, day, visitor FROM ingest_batch) d
    WHERE true ORDER BY d.tag_id, d.day, d.visitor ON CONFLICT DO NOTHING`,
].map((text) => CompiledQuery.raw(text));

/** Stores the batch's views, and adds them to the rollups and the visitor sets. */
export async function storeBatch(trx: Db): Promise<void> {
  for (const statement of STORE_BATCH) await trx.executeQuery(statement);
}

/** The scopes the batch's views belong to. */
export async function batchScopes(trx: Db) {
  const { rows } = await trx.executeQuery<Pick<ViewsTable, 'environment' | 'owner_id' | 'organization_id'>>(
    CompiledQuery.raw('SELECT DISTINCT environment, owner_id, organization_id FROM ingest_batch'),
  );
  return rows;
}

export interface BatchView extends Pick<
  ViewsTable,
  'id' | 'tag_id' | 'environment' | 'owner_id' | 'organization_id' | 'occurred_at' | 'source' | 'device' | 'browser' | 'os' | 'country'
> {
  short_id: string;
  title: string;
}

/** What the events of the batch's views tell, in arrival order. */
export async function batchViews(trx: Db): Promise<BatchView[]> {
  const columns = 'id, tag_id, short_id, title, environment, owner_id, organization_id, occurred_at, source, device, browser, os, country';
  return (await trx.executeQuery<BatchView>(CompiledQuery.raw(`SELECT ${columns} FROM ingest_batch ORDER BY seq, n`))).rows;
}

export function findView(db: Db, id: string) {
  return db
    .selectFrom('views')
    .select(['id', 'tag_id', 'occurred_at', 'duration_seconds', 'device', 'country'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Time on page reported by a beacon: applied only when it grows the view's current time. After
 * its tag's row (see lockTagRow), the view row is locked (a no-op update: a row lock on
 * PostgreSQL, the write lock on SQLite)
 * and its time read under that lock, so concurrent beacons of one view apply one after another
 * and the view counts once in its hour's average. A stored view is counted in its hour and day
 * already (ingestion stores and counts it at once): they follow its time. Returns whether the
 * time grew.
 */
export async function growViewDuration(trx: Db, view: { id: string; tag_id: string; hour: string }, seconds: number): Promise<boolean> {
  await lockTagRow(trx, view.tag_id, 'key share');
  await trx
    .updateTable('views')
    .set((eb) => ({ duration_seconds: eb.ref('duration_seconds') }))
    .where('id', '=', view.id)
    .execute();
  const current = await trx.selectFrom('views').select('duration_seconds').where('id', '=', view.id).executeTakeFirst();
  if (!current || (current.duration_seconds !== null && seconds <= current.duration_seconds)) return false;
  const previous = current.duration_seconds;
  await trx.updateTable('views').set({ duration_seconds: seconds }).where('id', '=', view.id).execute();
  const grow = {
    duration_sum: sql<number>`duration_sum + ${seconds - (previous ?? 0)}`,
    duration_count: sql<number>`duration_count + ${previous === null ? 1 : 0}`,
  };
  await trx.updateTable('tag_hourly').set(grow).where('tag_id', '=', view.tag_id).where('hour', '=', view.hour).execute();
  await trx.updateTable('tag_daily').set(grow).where('tag_id', '=', view.tag_id).where('day', '=', view.hour.slice(0, 10)).execute();
  return true;
}

export interface Range {
  /** Inclusive ISO timestamp. */
  from: string;
  /** Exclusive ISO timestamp. */
  to: string;
}

export function hourlyRows(db: Db, tagId: string, range: Range) {
  return db
    .selectFrom('tag_hourly')
    .select(['hour as bucket', 'views', 'qr_scans', 'direct_visits', 'duration_sum', 'duration_count', 'unique_visitors as unique_views'])
    .where('tag_id', '=', tagId)
    .where('hour', '>=', range.from)
    .where('hour', '<', range.to)
    .execute();
}

export function dailyRows(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily')
    .select(['day as bucket', 'views', 'qr_scans', 'direct_visits', 'duration_sum', 'duration_count', 'unique_views'])
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .execute();
}

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

/** Views per dimension and value over days [from, to). */
export function dailyDimensionTotals(db: Db, tagId: string, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily_dimensions')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('tag_id', '=', tagId)
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy(['dimension', 'value'])
    .execute();
}

/** Views per dimension and value over whole months [from, to) (YYYY-MM-01). */
export function monthlyDimensionTotals(db: Db, tagId: string, months: { from: string; to: string }) {
  return db
    .selectFrom('tag_monthly_dimensions')
    .select(['dimension', 'value', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('tag_id', '=', tagId)
    .where('month', '>=', months.from)
    .where('month', '<', months.to)
    .groupBy(['dimension', 'value'])
    .execute();
}

/** The rows of a scope's own tables (scope_daily, scope_day_visitors) on days [from, to). */
function ofScopeDays(scope: Scope, days: { from: string; to: string }) {
  return (eb: ExpressionBuilder<Database, 'scope_daily' | 'scope_day_visitors'>) =>
    eb.and([
      eb('environment', '=', scope.environment),
      eb('scope_id', '=', scope.organizationId ?? scope.userId),
      eb('day', '>=', days.from),
      eb('day', '<', days.to),
    ]);
}

export function scopeDailyRows(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db.selectFrom('scope_daily').select(['day', 'views', 'qr_scans']).where(ofScopeDays(scope, days)).execute();
}

/** Views per tag over whole months [from, to) (YYYY-MM-01). */
export function monthlyTagViews(db: Db, scope: Scope, months: { from: string; to: string }) {
  return db
    .selectFrom('tag_monthly')
    .select(['tag_id', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where('environment', '=', scope.environment)
    .where('scope_id', '=', scope.organizationId ?? scope.userId)
    .where('month', '>=', months.from)
    .where('month', '<', months.to)
    .groupBy('tag_id')
    .execute();
}

/** Views per tag over days [from, to). */
export function dailyTagViews(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_daily')
    .select(['tag_id', (eb) => eb.fn.sum<number | string>('views').as('views')])
    .where(inScope(scope))
    .where('day', '>=', days.from)
    .where('day', '<', days.to)
    .groupBy('tag_id')
    .execute();
}

export function tagTitles(db: Db, tagIds: string[]) {
  return tagIds.length === 0 ? Promise.resolve([]) : db.selectFrom('tags').select(['id', 'title']).where('id', 'in', tagIds).execute();
}

/** Where a range of instants starts (`at`: inclusive, `after`: exclusive) and ends (`before`: exclusive, `through`: inclusive). */
export type InstantFrom = { at: string } | { after: string };
export type InstantUntil = { before: string } | { through: string };

/** A tag's views (or logged views) between `from` and `until`. */
function tagViewsBetween(db: Db, tagId: string, from: InstantFrom, until: InstantUntil, loggedOnly: boolean) {
  let query = db
    .selectFrom('views')
    .where('tag_id', '=', tagId)
    .where('occurred_at', 'at' in from ? '>=' : '>', 'at' in from ? from.at : from.after)
    .where('occurred_at', 'before' in until ? '<' : '<=', 'before' in until ? until.before : until.through);
  if (loggedOnly) query = query.where('logged', '=', 1);
  return query;
}

/** How many of a tag's views (or logged views) lie between `from` and `until`. */
export async function countViews(db: Db, tagId: string, from: InstantFrom, until: InstantUntil, loggedOnly: boolean): Promise<number> {
  const row = await tagViewsBetween(db, tagId, from, until, loggedOnly)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * The instant of the tag's view `n` views (of those tagViewsBetween selects) after the first,
 * read from the index alone; undefined when there are not that many.
 */
export async function tagViewAfter(
  db: Db,
  tagId: string,
  from: InstantFrom,
  until: InstantUntil,
  loggedOnly: boolean,
  n: number,
): Promise<string | undefined> {
  const row = await tagViewsBetween(db, tagId, from, until, loggedOnly)
    .select('occurred_at')
    .orderBy('occurred_at')
    .limit(1)
    .offset(n)
    .executeTakeFirst();
  return row?.occurred_at;
}

export function listViews(db: Db, tagId: string, range: Range, page: { limit: number; offset: number; loggedOnly: boolean }) {
  let query = db
    .selectFrom('views')
    .selectAll()
    .where('tag_id', '=', tagId)
    .where('occurred_at', '>=', range.from)
    .where('occurred_at', '<', range.to);
  if (page.loggedOnly) query = query.where('logged', '=', 1);
  return query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

/** Where a page of views starts: at an instant, after one, or after one view (instant and id). */
export type ViewsFrom = { at: string } | { after: string } | { afterView: { at: string; id: string } };

function fromInstant(from: ViewsFrom) {
  return (eb: ExpressionBuilder<Database, 'views'>) =>
    'at' in from
      ? eb('occurred_at', '>=', from.at)
      : 'after' in from
        ? eb('occurred_at', '>', from.after)
        : eb('occurred_at', '>=', from.afterView.at);
}

/**
 * The instant of the `scan`-th view (of every tag) from `from` and before `to`, read from the
 * time index alone; undefined when fewer are left. Views up to it are a window of about `scan`
 * views, which a page of viewsPage then reads and sorts whatever share of them it exports.
 */
export async function viewsWindowEnd(db: Db, from: ViewsFrom, to: string, scan: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('views')
    .select('occurred_at')
    .where(fromInstant(from))
    .where('occurred_at', '<', to)
    .orderBy('occurred_at')
    .limit(1)
    .offset(scan - 1)
    .executeTakeFirst();
  return row?.occurred_at;
}

/**
 * One page of views of several tags, oldest first, in (occurred_at, id) order, from `from` and
 * up to `through` (inclusive; the window viewsWindowEnd found) or else before `to`. The window
 * bounds what one query reads and sorts, however many views the tags have (the order spans
 * tags, so no index gives it: without a window each page sorted every view of the period).
 */
export function viewsPage(
  db: Db,
  tagIds: string[],
  from: ViewsFrom,
  until: { through: string } | { before: string },
  loggedOnly: boolean,
  limit: number,
) {
  let query = db
    .selectFrom('views')
    .selectAll()
    .where('tag_id', 'in', tagIds)
    .where(fromInstant(from))
    .where('occurred_at', 'through' in until ? '<=' : '<', 'through' in until ? until.through : until.before);
  if ('afterView' in from) {
    const { at, id } = from.afterView;
    query = query.where((eb) => eb(eb.refTuple('occurred_at', 'id'), '>', eb.tuple(at, id)));
  }
  if (loggedOnly) query = query.where('logged', '=', 1);
  return query.orderBy('occurred_at').orderBy('id').limit(limit).execute();
}

/**
 * One page of per tag and day rows (days with views), after the (day, tag_id) cursor: of the
 * tags named, else of every tag in the scope. The cursor is a row-value comparison, so both
 * databases seek to it in the (…, day, tag_id) index instead of rescanning from the start.
 */
export function dailyPage(
  db: Db,
  of: { scope: Scope } | { tagIds: string[] },
  days: { from: string; to: string },
  after: { day: string; tagId: string } | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('tag_daily')
    .select(['day', 'tag_id', 'views', 'unique_views', 'qr_scans', 'direct_visits'])
    .where('day', '<', days.to)
    .where('views', '>', 0)
    .where((eb) => (after ? eb(eb.refTuple('day', 'tag_id'), '>', eb.tuple(after.day, after.tagId)) : eb('day', '>=', days.from)));
  query = 'scope' in of ? query.where(inScope(of.scope)) : query.where('tag_id', 'in', of.tagIds);
  return query.orderBy('day').orderBy('tag_id').limit(limit).execute();
}

export function countViewsSince(db: Db, tagId: string, since: string) {
  return db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tag_id', '=', tagId)
    .where('occurred_at', '>=', since)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.count));
}

/**
 * Deletes up to `limit` of the tag's stored views (all counted in the rollups already); returns
 * how many. Found through the (tag_id, occurred_at) index, oldest first.
 */
export async function deleteViewsOfTag(trx: Db, tagId: string, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('views')
    .where('id', 'in', (eb) => eb.selectFrom('views').select('id').where('tag_id', '=', tagId).orderBy('occurred_at').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Analytics records of a tag go with it, and its share of its scope's daily totals. */
export async function deleteTagAnalytics(trx: Db, tagId: string): Promise<void> {
  // The tag's daily rows, then its scope's: the order in which sealers lock them (PostgreSQL).
  // Ingestion, which writes rollup rows too, waits for the rollup lock (tag-dependent.ts).
  await forUpdate(trx, trx.selectFrom('tag_daily').select('day').where('tag_id', '=', tagId)).execute();
  // Its scope's sets of its closed days still hold its visitors: rebuilt without them later.
  await sql`UPDATE scope_day_visitors SET stale = 1
    FROM tag_daily d
    WHERE d.tag_id = ${tagId} AND scope_day_visitors.environment = d.environment
      AND scope_day_visitors.scope_id = coalesce(d.organization_id, d.owner_id) AND scope_day_visitors.day = d.day`.execute(trx);
  await sql`UPDATE scope_daily SET views = scope_daily.views - d.views, qr_scans = scope_daily.qr_scans - d.qr_scans
    FROM tag_daily d
    WHERE d.tag_id = ${tagId} AND scope_daily.environment = d.environment
      AND scope_daily.scope_id = coalesce(d.organization_id, d.owner_id) AND scope_daily.day = d.day`.execute(trx);
  for (const [table, column] of [
    ['views', 'occurred_at'],
    ['tag_hourly', 'hour'],
    ['tag_daily_dimensions', 'day'],
    ['tag_monthly_dimensions', 'month'],
    ['tag_visitor_hours', 'hour'],
    ['tag_visitor_days', 'day'],
    ['tag_day_visitors', 'day'],
    ['tag_monthly', 'month'],
    ['tag_daily', 'day'],
  ] as const) {
    await deleteTagRows(trx, table, column, tagId);
  }
}

/** Rows of a tag one statement of its deletion deletes, about: a few milliseconds of the thread. */
const TAG_ROWS_PER_STATEMENT = 2000;

/**
 * Deletes the tag's rows of `table`, about TAG_ROWS_PER_STATEMENT at a time in `column` order
 * (the key after tag_id), giving the thread back between statements. Inside the deletion's one
 * transaction: on SQLite other queries wait for its connection meanwhile, but other requests
 * run (a year of hourly and breakdown rows is tens of thousands of rows, 40-60 ms at once).
 */
async function deleteTagRows(trx: Db, table: string, column: string, tagId: string): Promise<void> {
  for (;;) {
    const bound = await sql<{ value: string }>`SELECT ${sql.ref(column)} AS value FROM ${sql.table(table)}
      WHERE tag_id = ${tagId} ORDER BY ${sql.ref(column)} LIMIT 1 OFFSET ${TAG_ROWS_PER_STATEMENT}`.execute(trx);
    const value = bound.rows[0]?.value;
    if (value === undefined) {
      await sql`DELETE FROM ${sql.table(table)} WHERE tag_id = ${tagId}`.execute(trx);
      return;
    }
    const deleted = await sql`DELETE FROM ${sql.table(table)} WHERE tag_id = ${tagId} AND ${sql.ref(column)} < ${value}`.execute(trx);
    // More rows than a statement's share with one value: they go together.
    if (Number(deleted.numAffectedRows ?? 0) === 0)
      await sql`DELETE FROM ${sql.table(table)} WHERE tag_id = ${tagId} AND ${sql.ref(column)} <= ${value}`.execute(trx);
    await setImmediate();
  }
}

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
    .values({ ...key, visitors: '' })
    .onConflict((oc) => oc.columns(['environment', 'scope_id', 'day']).doUpdateSet({ visitors: sql`scope_day_visitors.visitors` }))
    .returning(['visitors', 'stale'])
    .executeTakeFirstOrThrow();
}

/** Stores the scope-day's set; `rebuilt` clears its stale mark (the set was made from its tags' sets). */
export async function saveScopeDaySet(trx: Db, key: ScopeDay, visitors: string, rebuilt: boolean): Promise<void> {
  await trx
    .updateTable('scope_day_visitors')
    .set(rebuilt ? { visitors, stale: 0 } : { visitors })
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

/** The scope's sets of days [from, to), with their stale marks. */
export function scopeDaySets(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db.selectFrom('scope_day_visitors').select(['day', 'visitors', 'stale']).where(ofScopeDays(scope, days)).execute();
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
 * The visitors of the scope's tags on days [from, to) not closed yet, with their number when
 * they have one. Driven by the open rows (a day or two of them) and their tags, not by the
 * scope's days: over a year that would probe every tag-day of the scope.
 */
export function openScopeVisitorDays(db: Db, scope: Scope, days: { from: string; to: string }) {
  return db
    .selectFrom('tag_visitor_days as o')
    .innerJoin('tags as t', 't.id', 'o.tag_id')
    .select(['o.visitor', openRowNumber('o')])
    .where(inScope(scope, 't'))
    .where('o.day', '>=', days.from)
    .where('o.day', '<', days.to)
    .execute();
}

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
 * filtering every rollup row by `day < cutoff` first read all of tag_daily for each plan (the
 * Free plan's 7-day cutoff matches nearly every row), 0.2–1.7 s at 10 million views, on the
 * thread that serves requests in embedded mode, once an hour, even with nothing to delete.
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
  await db.deleteFrom('tag_monthly_dimensions').where('tag_id', '=', tag.tag_id).where('month', '<', cutoffMonth).execute();
  const environment = tag.environment as never;
  if (withScopeRows) {
    for (const table of ['scope_daily', 'scope_day_visitors'] as const) {
      await db
        .deleteFrom(table)
        .where('environment', '=', environment)
        .where('scope_id', '=', tag.scope_id)
        .where('day', '<', cutoffDay)
        .execute();
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
