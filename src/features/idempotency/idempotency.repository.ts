import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { IdempotencyKeysTable } from '../../db/schema.js';

/** All SQL of Idempotency-Key records. */

export type IdempotencyRow = IdempotencyKeysTable;

/** Inserts the claim unless the key is taken; true when this call made it. */
export async function insertClaim(db: Db, row: IdempotencyRow): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['api_key_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function findRecord(db: Db, apiKeyId: string, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('api_key_id', '=', apiKeyId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/**
 * Replaces `previous` (an expired record, or an abandoned claim) by `row`, only if it is still
 * as read: of two requests taking it over at once, exactly one succeeds.
 */
export async function replaceRecord(db: Db, previous: IdempotencyRow, row: IdempotencyRow): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set(row)
    .where('api_key_id', '=', previous.api_key_id)
    .where('idempotency_key', '=', previous.idempotency_key)
    .where('request_id', '=', previous.request_id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Stores the response of the request that holds the claim (`request_id`). */
export function completeRecord(
  db: Db,
  apiKeyId: string,
  key: string,
  requestId: string,
  response: Pick<IdempotencyRow, 'status' | 'response_headers' | 'response_body'>,
) {
  return db
    .updateTable('idempotency_keys')
    .set(response)
    .where('api_key_id', '=', apiKeyId)
    .where('idempotency_key', '=', key)
    .where('request_id', '=', requestId)
    .execute();
}

/** Removes a claim still held by `requestId`, so a retry runs anew. */
export function deleteClaim(db: Db, apiKeyId: string, key: string, requestId: string) {
  return db
    .deleteFrom('idempotency_keys')
    .where('api_key_id', '=', apiKeyId)
    .where('idempotency_key', '=', key)
    .where('request_id', '=', requestId)
    .where('status', 'is', null)
    .execute();
}

/** Deletes at most `limit` records created before `before`; returns how many went. */
export async function deleteRecordsCreatedBefore(db: Db, before: string, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM idempotency_keys
    WHERE (api_key_id, idempotency_key) IN (
      SELECT api_key_id, idempotency_key FROM idempotency_keys WHERE created_at < ${before} LIMIT ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
