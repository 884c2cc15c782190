import { sql, type Kysely } from 'kysely';

/**
 * Mail, and the account flows that send it (src/features/mail/, accounts' password reset and
 * email verification, the weekly report).
 *
 * mail_outbox: one row per mail, written in the transaction of the change that causes it and
 * sent by the worker (`mail-delivery` job) with retries. The body is sealed under SECRET_KEY
 * (it may hold a single-use link) and emptied once sent; sent and failed rows are purged later.
 *
 * account_tokens: single-use links mailed to a user (a password reset, an address to verify).
 * Only the SHA-256 of the token is stored; `used_at` marks it spent.
 *
 * users gain `email_verified_at` (existing users count as verified: they were made by the
 * operator, the first-run setup or sign-up before verification existed), `weekly_report` (the
 * opt-in, 0 for all) and `weekly_report_week` (the last week whose report was sent, `2026-W48`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('account_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('account_tokens_user_idx').on('account_tokens').columns(['user_id', 'purpose']).execute();

  await db.schema.alterTable('users').addColumn('email_verified_at', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('weekly_report', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('users').addColumn('weekly_report_week', 'text').execute();
  await sql`UPDATE users SET email_verified_at = created_at`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('weekly_report_week').execute();
  await db.schema.alterTable('users').dropColumn('weekly_report').execute();
  await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
  await db.schema.dropTable('account_tokens').execute();
  await db.schema.dropTable('mail_outbox').execute();
}
