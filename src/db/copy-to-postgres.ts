import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { invalidRequest } from '../errors.js';
import { migrateToLatest, type DatabaseHandle, type Db } from './database.js';
import { migrations } from './migrations/index.js';
import { transaction } from './transaction.js';

/** Rows per INSERT … SELECT FROM unnest(): one array parameter per column, whatever the row count. */
const ROWS_PER_STATEMENT = 10_000;

/** Kysely's own bookkeeping: the target's migrations write it, so it is compared, never copied. */
const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * How a value read from SQLite becomes a value of the target column, by the column's
 * PostgreSQL type. The migrations give both databases the same columns: text for ids, times
 * (ISO 8601 strings) and JSON kept as text, integer for counters and 0/1 flags, bigint for
 * sizes and identities. PostgreSQL alone keeps the view inbox's records as jsonb, which SQLite
 * holds as its binary JSONB: `json()` turns those into text on the way out. A column of any
 * other type stops the copy: nothing is guessed.
 */
const CONVERSIONS: Record<string, { read: (column: string) => string; accepts: (value: unknown) => boolean }> = {
  text: { read: quoted, accepts: (v) => typeof v === 'string' },
  'character varying': { read: quoted, accepts: (v) => typeof v === 'string' },
  integer: { read: quoted, accepts: Number.isInteger },
  bigint: { read: quoted, accepts: Number.isInteger },
  jsonb: { read: (column) => `json(${quoted(column)})`, accepts: (v) => typeof v === 'string' },
};

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

interface TargetColumn {
  name: string;
  /** information_schema's data_type: `integer`, `text`, `jsonb` … */
  type: string;
  /** The array type unnest() takes for this column: `integer[]`, `text[]` … */
  arrayType: string;
  /** An identity column, whose sequence must continue after the copied rows. */
  identity: boolean;
}

export interface TableCopied {
  table: string;
  rows: number;
}

/**
 * Copies every table of the SQLite database in `sqliteFile` into `target` (PostgreSQL, migrated
 * here to the same version), from one read snapshot, so a server may go on writing meanwhile:
 * what it writes after the snapshot began is not copied. All rows go in one transaction: a
 * failure leaves the target empty. Foreign keys and secondary indexes are dropped while loading
 * and made again at the end, which checks every reference once and is far faster than checking
 * row by row. Row counts are compared table by table before the commit.
 */
export async function copySqliteToPostgres(
  sqliteFile: string,
  target: DatabaseHandle,
  onTable: (copied: TableCopied) => void,
): Promise<TableCopied[]> {
  const source = new SQLite(sqliteFile, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    // A deferred transaction: its first read fixes the snapshot that every later read sees.
    source.exec('BEGIN');
    requireLatestSchema(source);
    await migrateToLatest(target);
    const tables = await matchTables(source, target.db);
    await requireEmpty(target.db, [...tables.keys()]);
    return await transaction(target.db, async (trx) => {
      const rebuild = await dropConstraintsAndIndexes(trx);
      const copied: TableCopied[] = [];
      for (const [table, columns] of tables) {
        const rows = await copyTable(source, trx, table, columns);
        copied.push({ table, rows });
        onTable({ table, rows });
      }
      for (const statement of rebuild) await sql.raw(statement).execute(trx);
      await continueIdentities(trx, tables);
      await verifyCounts(source, trx, copied);
      return copied;
    });
  } finally {
    if (source.inTransaction) source.exec('COMMIT');
    source.close();
  }
}

/** The source must be at the version this program migrates the target to. */
function requireLatestSchema(source: SQLite.Database): void {
  const applied = new Set((source.prepare('SELECT name FROM kysely_migration').pluck().all() as string[]) ?? []);
  const missing = Object.keys(migrations).filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw invalidRequest(`the SQLite database lacks migrations ${missing.join(', ')}: run \`tagsvc migrate\` on it first`);
  }
  const unknown = [...applied].filter((name) => !(name in migrations));
  if (unknown.length > 0) throw invalidRequest(`the SQLite database has migrations this version does not know: ${unknown.join(', ')}`);
}

/**
 * The tables to copy with the target's columns, in the source's order; any table or column
 * that one side has and the other lacks stops the copy.
 */
async function matchTables(source: SQLite.Database, target: Db): Promise<Map<string, TargetColumn[]>> {
  const sourceTables = (
    source
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
      .pluck()
      .all() as string[]
  ).filter((name) => !MIGRATION_TABLES.has(name));
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string; array_type: string; is_identity: string }>`
    SELECT c.table_name, c.column_name, c.data_type, c.is_identity, format_type(a.atttypid, a.atttypmod) || '[]' AS array_type
      FROM information_schema.columns c
      JOIN pg_attribute a ON a.attrelid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))::regclass AND a.attname = c.column_name
     WHERE c.table_schema = current_schema()
     ORDER BY c.table_name, c.ordinal_position`.execute(target);
  const targetTables = new Map<string, TargetColumn[]>();
  for (const row of rows) {
    if (MIGRATION_TABLES.has(row.table_name)) continue;
    const columns = targetTables.get(row.table_name) ?? [];
    columns.push({ name: row.column_name, type: row.data_type, arrayType: row.array_type, identity: row.is_identity === 'YES' });
    targetTables.set(row.table_name, columns);
  }
  const onlyTarget = [...targetTables.keys()].filter((name) => !sourceTables.includes(name));
  if (onlyTarget.length > 0) throw invalidRequest(`tables missing from the SQLite database: ${onlyTarget.join(', ')}`);
  const tables = new Map<string, TargetColumn[]>();
  for (const table of sourceTables) {
    const columns = targetTables.get(table);
    if (!columns)
      throw invalidRequest(`the SQLite table ${table} has no counterpart in PostgreSQL: this version does not know how to copy it`);
    const sourceColumns = (source.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).sort();
    const targetColumns = columns.map((c) => c.name).sort();
    if (sourceColumns.join() !== targetColumns.join()) {
      throw invalidRequest(
        `table ${table} has columns ${sourceColumns.join(', ')} in SQLite but ${targetColumns.join(', ')} in PostgreSQL`,
      );
    }
    const unknown = columns.find((c) => !(c.type in CONVERSIONS));
    if (unknown)
      throw invalidRequest(`column ${table}.${unknown.name} is of type ${unknown.type}, which this version does not know how to copy`);
    tables.set(table, columns);
  }
  return tables;
}

async function requireEmpty(target: Db, tables: string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM ${sql.table(table)}) AS found`.execute(target);
    if (rows[0]!.found) {
      throw invalidRequest(`the target already holds data (table ${table} has rows): copy into an empty database or schema`);
    }
  }
}

/** Drops the foreign keys and the secondary indexes of the schema; returns the statements that make them again. */
async function dropConstraintsAndIndexes(trx: Db): Promise<string[]> {
  const foreignKeys = (
    await sql<{ table: string; name: string; definition: string }>`
      SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
        FROM pg_constraint WHERE connamespace = current_schema()::regnamespace AND contype = 'f'`.execute(trx)
  ).rows;
  const indexes = (
    await sql<{ name: string; definition: string }>`
      SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
       WHERE i.schemaname = current_schema()
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = current_schema()::regnamespace)`.execute(
      trx,
    )
  ).rows;
  for (const key of foreignKeys) await sql.raw(`ALTER TABLE ${key.table} DROP CONSTRAINT ${quoted(key.name)}`).execute(trx);
  for (const index of indexes) await sql.raw(`DROP INDEX ${quoted(index.name)}`).execute(trx);
  return [
    ...indexes.map((index) => index.definition),
    ...foreignKeys.map((key) => `ALTER TABLE ${key.table} ADD CONSTRAINT ${quoted(key.name)} ${key.definition}`),
  ];
}

/**
 * Streams one table: while PostgreSQL inserts a batch, the next is read from SQLite, so the
 * two databases work at the same time. Returns the rows copied.
 */
async function copyTable(source: SQLite.Database, trx: Db, table: string, columns: TargetColumn[]): Promise<number> {
  const select = source.prepare(`SELECT ${columns.map((c) => CONVERSIONS[c.type]!.read(c.name)).join(', ')} FROM ${quoted(table)}`).raw();
  // OVERRIDING SYSTEM VALUE keeps the source's values in identity columns (GENERATED ALWAYS).
  const head = sql.raw(`INSERT INTO ${quoted(table)} (${columns.map((c) => quoted(c.name)).join(', ')}) OVERRIDING SYSTEM VALUE`);
  const accepts = columns.map((c) => CONVERSIONS[c.type]!.accepts);
  let pending: Promise<unknown> | undefined;
  let rows = 0;
  let batch: unknown[][] = columns.map(() => []);
  let size = 0;
  const flush = async () => {
    const arrays = batch;
    batch = columns.map(() => []);
    size = 0;
    await pending;
    const unnest = sql.join(columns.map((c, i) => sql`${arrays[i]}::${sql.raw(c.arrayType)}`));
    pending = sql`${head} SELECT * FROM unnest(${unnest})`.execute(trx);
    // Awaited before the next batch or at the end; until then a failure must not count as unhandled.
    pending.catch(() => undefined);
  };
  for (const row of select.iterate() as Iterable<unknown[]>) {
    for (let c = 0; c < row.length; c++) {
      const value = row[c];
      if (value !== null && !accepts[c]!(value)) {
        throw invalidRequest(
          `${table}.${columns[c]!.name} holds a value PostgreSQL's ${columns[c]!.type} cannot take: ${String(value).slice(0, 60)}`,
        );
      }
      batch[c]!.push(value);
    }
    rows++;
    if (++size === ROWS_PER_STATEMENT) await flush();
  }
  if (size > 0) await flush();
  await pending;
  return rows;
}

/** Identity columns continue after the highest copied value, so new rows never collide with copied ones. */
async function continueIdentities(trx: Db, tables: Map<string, TargetColumn[]>): Promise<void> {
  for (const [table, columns] of tables) {
    for (const column of columns.filter((c) => c.identity)) {
      await sql`SELECT setval(pg_get_serial_sequence(${quoted(table)}, ${column.name}),
                  coalesce((SELECT max(${sql.ref(column.name)}) FROM ${sql.table(table)}), 0) + 1, false)`.execute(trx);
    }
  }
}

async function verifyCounts(source: SQLite.Database, trx: Db, copied: TableCopied[]): Promise<void> {
  for (const { table, rows } of copied) {
    const inSource = source
      .prepare(`SELECT count(*) FROM ${quoted(table)}`)
      .pluck()
      .get() as number;
    const { rows: counted } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(trx);
    const inTarget = Number(counted[0]!.n);
    if (inSource !== rows || inTarget !== rows) {
      throw new Error(
        `row counts differ for ${table}: ${inSource} in SQLite, ${rows} read, ${inTarget} in PostgreSQL; nothing was committed`,
      );
    }
  }
}
