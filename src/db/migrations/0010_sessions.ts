import { sql, type Kysely } from 'kysely';

/**
 * Dashboard sign-in.
 *
 * users gain `is_owner` (the instance owner: the account made by the first-run setup, which the
 * admin area relies on; at most one, held by a partial unique index so two concurrent first-run
 * forms cannot both make one), `disabled` (a disabled user's sessions stop working at once) and
 * `last_sign_in_at`. An instance that already has users makes its oldest user the owner.
 *
 * sessions: one row per signed-in browser. Only the SHA-256 of the session token is stored, so a
 * copy of the database signs nobody in. `expires_at` is the absolute end; `last_seen_at` drives
 * the idle expiry (src/features/accounts/sessions.ts holds both durations).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('is_owner', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('users').addColumn('last_sign_in_at', 'text').execute();
  await sql`CREATE UNIQUE INDEX users_one_owner_idx ON users (is_owner) WHERE is_owner = 1`.execute(db);
  await sql`UPDATE users SET is_owner = 1 WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)`.execute(db);

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
  await sql`DROP INDEX users_one_owner_idx`.execute(db);
  for (const column of ['last_sign_in_at', 'disabled', 'is_owner']) {
    await db.schema.alterTable('users').dropColumn(column).execute();
  }
}
