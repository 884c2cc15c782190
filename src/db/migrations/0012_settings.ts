import type { Kysely } from 'kysely';

/**
 * Instance settings the owner changes in the dashboard's Admin area, one row per setting
 * (`signup`: `open` or `closed`). A setting without a row takes its value from the environment
 * (SIGNUP), so an instance behaves as configured until the owner changes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('settings').execute();
}
