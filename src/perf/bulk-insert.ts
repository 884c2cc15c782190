import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../db/database.js';
import { transaction } from '../db/transaction.js';

/**
 * Multi-row INSERTs written as SQL text with parameters. View recording writes a dozen
 * statements for every batch of views; building Kysely's immutable query tree for each costs
 * more than the database's own work, and these statements have one fixed shape. The text is
 * the same on both databases but for the placeholders (? or $n).
 */
export interface BulkInsert<Row> {
  table: string;
  /** Column names, in the order `values` returns them. */
  columns: readonly string[];
  values(row: Row): unknown[];
  /** On a key conflict: do nothing, or add these columns of the new row to the stored one. */
  onConflict?: { keys: readonly string[]; add?: readonly string[] };
  returning?: readonly string[];
}

// Bound parameters stay far below SQLite's 32,766 and PostgreSQL's 65,535 per statement.
const MAX_PARAMETERS = 10_000;

/** The INSERT for `rowCount` rows; on PostgreSQL its placeholders are numbered from `first`. */
function statementText<Row>(spec: BulkInsert<Row>, rowCount: number, postgres: boolean, first = 1): string {
  const width = spec.columns.length;
  const rows: string[] = [];
  for (let r = 0; r < rowCount; r++) {
    const placeholders: string[] = [];
    for (let c = 0; c < width; c++) placeholders.push(postgres ? `$${first + r * width + c}` : '?');
    rows.push(`(${placeholders.join(',')})`);
  }
  let text = `INSERT INTO ${spec.table} (${spec.columns.join(',')}) VALUES ${rows.join(',')}`;
  if (spec.onConflict) {
    const { keys, add } = spec.onConflict;
    text += add?.length
      ? ` ON CONFLICT (${keys.join(',')}) DO UPDATE SET ${add.map((c) => `${c} = ${spec.table}.${c} + excluded.${c}`).join(',')}`
      : ' ON CONFLICT DO NOTHING';
  }
  if (spec.returning) text += ` RETURNING ${spec.returning.join(',')}`;
  return text;
}

/** Inserts the rows in as few statements as the parameter limit allows; returns the RETURNING rows. */
export async function bulkInsert<Row, Returned = never>(db: Db, spec: BulkInsert<Row>, rows: readonly Row[]): Promise<Returned[]> {
  const postgres = isPostgres(db);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / spec.columns.length));
  const returned: Returned[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const parameters = chunk.flatMap((row) => spec.values(row));
    const result = await db.executeQuery<Returned>(CompiledQuery.raw(statementText(spec, chunk.length, postgres), parameters));
    returned.push(...result.rows);
  }
  return returned;
}

export interface InsertPart<Row> {
  spec: BulkInsert<Row>;
  rows: readonly Row[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parts of any row type
const parameterCountOf = (parts: ReadonlyArray<InsertPart<any>>) =>
  parts.reduce((sum, part) => sum + part.rows.length * part.spec.columns.length, 0);

/**
 * Several inserts into different tables; returns each part's RETURNING rows. On PostgreSQL,
 * where every statement is a network round trip, they go as one statement of data-modifying
 * CTEs (each sees the tables as they were before it, which is all independent inserts need).
 * On SQLite, in process, one after another.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parts of any row type
export async function insertAll(db: Db, parts: ReadonlyArray<InsertPart<any>>): Promise<unknown[][]> {
  if (!isPostgres(db) || parameterCountOf(parts) > MAX_PARAMETERS) {
    const results: unknown[][] = [];
    for (const part of parts) results.push(part.rows.length > 0 ? await bulkInsert(db, part.spec, part.rows) : []);
    return results;
  }
  const ctes: string[] = [];
  const selects: string[] = [];
  const parameters: unknown[] = [];
  parts.forEach((part, i) => {
    if (part.rows.length === 0) return;
    ctes.push(`p${i} AS (${statementText(part.spec, part.rows.length, true, parameters.length + 1)})`);
    for (const row of part.rows) parameters.push(...part.spec.values(row));
    if (part.spec.returning) selects.push(`SELECT ${i} AS part, row_to_json(p${i}) AS row FROM p${i}`);
  });
  const results: unknown[][] = parts.map(() => []);
  if (ctes.length === 0) return results;
  const text = `WITH ${ctes.join(', ')} ${selects.length > 0 ? selects.join(' UNION ALL ') : 'SELECT NULL AS part, NULL AS row WHERE false'}`;
  const { rows } = await db.executeQuery<{ part: number; row: unknown }>(CompiledQuery.raw(text, parameters));
  for (const { part, row } of rows) results[part]!.push(row);
  return results;
}

/**
 * insertAll, all or nothing: on PostgreSQL, when the parts fit in one statement, that statement
 * alone (atomic, and no BEGIN and COMMIT round trips); otherwise in a transaction.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parts of any row type
export function insertAllAtomically(db: Db, parts: ReadonlyArray<InsertPart<any>>): Promise<unknown[][]> {
  if (isPostgres(db) && parameterCountOf(parts) <= MAX_PARAMETERS) return insertAll(db, parts);
  return transaction(db, (trx) => insertAll(trx, parts));
}
