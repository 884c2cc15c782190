import type { Db } from '../../db/database.js';
import { claimSkippingLocked } from '../../db/locks.js';
import type { MailOutboxTable } from '../../db/schema.js';
import { transaction } from '../../db/transaction.js';

/** All SQL of the mail outbox. */

export function insertMail(db: Db, row: Omit<MailOutboxTable, 'attempts' | 'last_error' | 'sent_at'>) {
  return db.insertInto('mail_outbox').values(row).execute();
}

/**
 * The next mail due by `now`, claimed for this worker: its attempt is counted and the next one
 * pushed to `leaseUntil` before it is sent, so another worker (PostgreSQL: SKIP LOCKED
 * meanwhile) leaves it alone, and a worker that dies mid-send retries it later.
 */
export async function claimNextMail(db: Db, now: string, leaseUntil: string) {
  // Most turns find nothing: they ask without a transaction, which on SQLite would take the write lock.
  const due = await db
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .limit(1)
    .executeTakeFirst();
  if (!due) return undefined;
  return transaction(db, async (trx) => {
    const row = await claimSkippingLocked(
      trx,
      trx
        .selectFrom('mail_outbox')
        .select(['id', 'recipient', 'template', 'subject', 'body', 'attempts'])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(1),
    ).executeTakeFirst();
    if (!row) return undefined;
    await trx
      .updateTable('mail_outbox')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: leaseUntil }))
      .where('id', '=', row.id)
      .execute();
    return { ...row, attempts: row.attempts + 1 };
  });
}

/** Sent: the body, which may hold a single-use link, is not kept. */
export function markSent(db: Db, id: string, at: string) {
  return db.updateTable('mail_outbox').set({ status: 'sent', body: '', sent_at: at, last_error: null }).where('id', '=', id).execute();
}

export function markRetry(db: Db, id: string, nextAttemptAt: string, error: string) {
  return db.updateTable('mail_outbox').set({ next_attempt_at: nextAttemptAt, last_error: error }).where('id', '=', id).execute();
}

/** Given up: the body goes as for a sent mail. */
export function markFailed(db: Db, id: string, error: string) {
  return db.updateTable('mail_outbox').set({ status: 'failed', body: '', last_error: error }).where('id', '=', id).execute();
}

/** Sent and failed mails created before `before` are deleted. */
export async function purgeFinished(db: Db, before: string): Promise<number> {
  const result = await db
    .deleteFrom('mail_outbox')
    .where('status', 'in', ['sent', 'failed'])
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
