import { PostgresAdapter } from 'kysely';

/**
 * Whether a Kysely instance talks to PostgreSQL rather than SQLite: for code that holds only a
 * `db` (or a transaction of it), and for migrations, that must word a query per dialect.
 */
export const isPostgres = (db: { getExecutor(): { adapter: unknown } }): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
