import { sql, type SelectQueryBuilder } from 'kysely';
import { isPostgres, type Db } from './database.js';
import type { Database } from './schema.js';

/**
 * Every lock the services take, in the one order they are taken. A transaction that needs two
 * takes them top to bottom, so two transactions never wait for each other:
 *
 *   1. an account's row (webhook creation: the plan's webhook count; an organization's
 *      invitations, sent and accepted one at a time)
 *   2. the view rollup (advisory lock): ingestion of the view inbox, tag deletions, the
 *      visitor purge, bot counts added to the rollups
 *   3. a tag's row: `update` for its deletion, `key share` for a beacon of one of its views
 *      and for a group of its link clicks (the group's insert locks its tags' rows itself, in
 *      id order, features/analytics/clicks.repository.ts), a new page version for a change of
 *      one of its files (before the account's storage)
 *   4. a view's row (a beacon's duration)
 *   5. rollup rows (tag_daily, scope-day visitor sets)
 *
 * SQLite runs one write transaction at a time (transactions begin IMMEDIATE, database.ts), so
 * it needs none of them: every function here is a no-op there.
 */

/** Locks the rows a select returns until the transaction ends (PostgreSQL). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any select of any table
export function forUpdate<Q extends SelectQueryBuilder<Database, any, any>>(db: Db, query: Q): Q {
  return isPostgres(db) ? (query.forUpdate() as Q) : query;
}

/** 1. Serializes changes counted per account (its webhooks) without writing the row. */
export async function lockAccount(trx: Db, account: { userId: string; organizationId: string | null }): Promise<void> {
  if (!isPostgres(trx)) return;
  await (
    account.organizationId
      ? trx.selectFrom('organizations').select('id').where('id', '=', account.organizationId)
      : trx.selectFrom('users').select('id').where('id', '=', account.userId)
  )
    .forUpdate()
    .execute();
}

// pg_advisory_xact_lock's key for "rolling up views": any constant no other lock of ours uses.
const VIEW_ROLLUP_LOCK = 7_400_117;

/** 2. One roller at a time: a report's catch-up waits for a roll in progress, then sees its views. */
export async function lockViewRollup(trx: Db): Promise<void> {
  if (isPostgres(trx)) await sql`SELECT pg_advisory_xact_lock(${VIEW_ROLLUP_LOCK})`.execute(trx);
}

/**
 * 3. A tag's row: `update` for its deletion, before any of its views or rollups; `key share`
 * for a beacon, before its view's row. The one that comes second waits here holding nothing.
 * Beacons share the row with one another and with edits (which do not change its key).
 */
export async function lockTagRow(trx: Db, tagId: string, mode: 'update' | 'key share'): Promise<void> {
  if (!isPostgres(trx)) return;
  const query = trx.selectFrom('tags').select('id').where('id', '=', tagId);
  await (mode === 'update' ? query.forUpdate() : query.forKeyShare()).execute();
}

/** Claims the rows a select returns, passing over rows another worker holds (PostgreSQL). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any select of any table
export function claimSkippingLocked<Q extends SelectQueryBuilder<Database, any, any>>(db: Db, query: Q, of?: keyof Database): Q {
  return isPostgres(db) ? (query.forUpdate(of).skipLocked() as Q) : query;
}
