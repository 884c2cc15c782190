import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../db/database.js';

/**
 * Multi-row INSERTs written as SQL text with parameters: a batch of rows of one fixed shape
 * (the events of a batch of views) costs one statement per few hundred rows, without building
 * Kysely's immutable query tree for each. The text is the same on both databases but for the
 * placeholders (? or $n).
 */
export interface BulkInsert<Row> {
  table: string;
  /** Column names, in the order `values` returns them. */
  columns: readonly string[];
  values(row: Row): unknown[];
}

// Bound parameters stay far below SQLite's 32,766 and PostgreSQL's 65,535 per statement.
const MAX_PARAMETERS = 10_000;

function statementText<Row>(spec: BulkInsert<Row>, rowCount: number, postgres: boolean): string {
  const width = spec.columns.length;
  const rows: string[] = [];
  for (let r = 0; r < rowCount; r++) {
    const placeholders: string[] = [];
    for (let c = 0; c < width; c++) placeholders.push(postgres ? `$${r * width + c + 1}` : '?');
    rows.push(`(${placeholders.join(',')})`);
  }
  return `INSERT INTO ${spec.table} (${spec.columns.join(',')}) VALUES ${rows.join(',')}`;
}

/** Inserts the rows in as few statements as the parameter limit allows. */
export async function bulkInsert<Row>(db: Db, spec: BulkInsert<Row>, rows: readonly Row[]): Promise<void> {
  const postgres = isPostgres(db);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / spec.columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    await db.executeQuery(
      CompiledQuery.raw(
        statementText(spec, chunk.length, postgres),
        chunk.flatMap((row) => spec.values(row)),
      ),
    );
  }
}
