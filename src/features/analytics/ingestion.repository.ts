import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../../db/database.js';
import type { ViewsTable } from '../../db/schema.js';
import { preparedOnPostgres } from '../../perf/pg-prepared-statements.js';
import { dimensionValues, SCOPE_DIMENSIONS, TAG_DIMENSIONS } from '../../db/dimensions.js';
import { NUMERIC_FIELDS, RECORD_FIELDS } from './view-record.js';

/** The view inbox and its ingestion: a batch of views stored, rolled up and counted in the visitor sets. */

/**
 * Appends a group of view records (view-record.ts), given as one JSON array, to the inbox: one
 * row for the group, one statement of two parameters whatever its size, atomic by itself. The
 * array is kept as binary JSON (SQLite's JSONB, PostgreSQL's jsonb): parsed once, here, so that
 * ingestion reads a field by its offset instead of parsing the text again. One row a group
 * rather than one a view: the per-row costs (tuple, index entry, deletion) are paid once a group.
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
 * Through the sequence's index: the inbox's rows come and go by the thousand, and without it
 * PostgreSQL finds a live one by scanning its heap past every row deleted since the last vacuum.
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

// The batch's views counted by tag, day and every dimension's value: the rollups without unique
// counts read these few rows instead of grouping the whole batch once each.
const CELL_KEYS = ['tag_id', 'environment', 'scope_id', 'day', 'month'];
const CELL_COLUMNS = [...CELL_KEYS, ...TAG_DIMENSIONS];

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
 * scan of all open visitor rows.
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

/** The cells as (dimension, value, views) rows of `dimensions`. */
const dimensionRows = (dimensions: readonly string[]) =>
  `(${dimensions
    .map(
      (dimension) =>
        `SELECT tag_id, environment, scope_id, day, month, '${dimension}' AS dimension, ${dimension} AS value, views FROM ingest_cells`,
    )
    .join(' UNION ALL ')}) b`;

const VIEW_COUNTS: Array<[string, string]> = [
  ['views', 'count(*)'],
  ['qr_scans', counted("b.source = 'qr_scan'")],
  ['direct_visits', counted("b.source = 'direct'")],
  ['duration_sum', 'coalesce(sum(b.duration_seconds), 0)'],
  ['duration_count', 'count(b.duration_seconds)'],
];

/** In this order: the unique counts compare the batch's visitors with the sets before these take them in. */
const storeBatchStatements = (postgres: boolean) =>
  [
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
    cellsOf(postgres),
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
    rollUp(
      'scope_hourly',
      ['environment', 'scope_id', 'hour'],
      [],
      [
        ['views', 'count(*)'],
        ['qr_scans', counted("b.source = 'qr_scan'")],
      ],
    ),
    rollUp('tag_daily_dimensions', ['tag_id', 'day', 'dimension', 'value'], [], [['views', 'sum(b.views)']], dimensionRows(TAG_DIMENSIONS)),
    rollUp(
      'tag_monthly_dimensions',
      ['tag_id', 'month', 'dimension', 'value'],
      [],
      [['views', 'sum(b.views)']],
      dimensionRows(TAG_DIMENSIONS),
    ),
    rollUp(
      'scope_daily_dimensions',
      ['environment', 'scope_id', 'day', 'dimension', 'value'],
      [],
      [['views', 'sum(b.views)']],
      dimensionRows(SCOPE_DIMENSIONS),
    ),
    rollUp(
      'scope_monthly_dimensions',
      ['environment', 'scope_id', 'month', 'dimension', 'value'],
      [],
      [['views', 'sum(b.views)']],
      dimensionRows(SCOPE_DIMENSIONS),
    ),
    `INSERT INTO tag_visitor_hours (tag_id, hour, visitor)
    SELECT DISTINCT tag_id, hour, visitor FROM ingest_batch WHERE true ORDER BY tag_id, hour, visitor ON CONFLICT DO NOTHING`,
    // With the visitor's number where it has one: reports then look up only the open rows'
    // visitors numbered since (openScopeVisitors). Read under the rollup lock, which the
    // visitor purge takes too: a number stored is never one the purge deletes meanwhile.
    // Looked up row by row through the key's index: a join would let PostgreSQL, which knows
    // nothing of a temporary table's rows, scan all of visitors for each batch.
    `INSERT INTO tag_visitor_days (tag_id, day, visitor, visitor_number)
    SELECT d.tag_id, d.day, d.visitor, (SELECT n.id FROM visitors n WHERE n.key = d.visitor)
    FROM (SELECT DISTINCT tag_id, day, visitor FROM ingest_batch) d
    WHERE true ORDER BY d.tag_id, d.day, d.visitor ON CONFLICT DO NOTHING`,
  ].map((text) => CompiledQuery.raw(text));
const STORE_BATCH = { postgres: storeBatchStatements(true), sqlite: storeBatchStatements(false) };

/** The batch's cells: its views grouped by tag, day and each dimension's value (dimensions.ts). */
function cellsOf(postgres: boolean): string {
  const values = dimensionValues(postgres);
  const columns = [...CELL_KEYS, ...TAG_DIMENSIONS.map((dimension) => values[dimension])].join(', ');
  return `INSERT INTO ingest_cells (${CELL_COLUMNS.join(', ')}, views, qr_scans)
    SELECT ${columns}, count(*), ${counted("source = 'qr_scan'")} FROM ingest_batch GROUP BY ${columns}`;
}

/** Stores the batch's views, and adds them to the rollups and the visitor sets. */
export async function storeBatch(trx: Db): Promise<void> {
  for (const statement of STORE_BATCH[isPostgres(trx) ? 'postgres' : 'sqlite']) await trx.executeQuery(statement);
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
