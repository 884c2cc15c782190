import { sql } from 'kysely';
import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { afterCommit } from '../../db/transaction.js';
import { failureFields } from '../../errors.js';
import type { Environment, FilesTable } from '../../db/schema.js';

/** All SQL for files and storage usage. */

export interface FileRow extends Omit<FilesTable, 'size'> {
  size: number;
}

/** bigint columns arrive as strings from PostgreSQL. */
function toFileRow<T extends { size: number | string }>(row: T): T & { size: number } {
  return { ...row, size: Number(row.size) };
}

/** Which of `ids` have a file row. */
/** Every file's id, size and checksum, in id order, a page at a time: what `files copy` moves. */
export async function* storedFileFacts(db: Db, pageSize = 500): AsyncIterable<Pick<FileRow, 'id' | 'size' | 'sha256'>> {
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('files')
      .select(['id', 'size', 'sha256'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(pageSize)
      .execute();
    yield* page.map(toFileRow);
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.id;
  }
}

export async function existingFileIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  // Chunked: SQLite caps the number of bound parameters in one statement.
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('files')
      .select('id')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

export function insertFile(db: Db, row: FileRow) {
  return db.insertInto('files').values(row).execute();
}

export async function findFileById(db: Db, id: string): Promise<FileRow | undefined> {
  const row = await db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toFileRow(row);
}

export async function listFilesOfTag(db: Db, tagId: string, limit: number, offset: number) {
  const { total } = await db
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where('tag_id', '=', tagId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('files')
    .selectAll()
    .where('tag_id', '=', tagId)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { total: Number(total), rows: rows.map(toFileRow) };
}

/** What a tag's public page lists of its files, oldest first (the order they were attached). */
export function listPageFilesOfTag(db: Db, tagId: string, limit: number) {
  return db
    .selectFrom('files')
    .select(['id', 'name', 'mime_type', 'size'])
    .where('tag_id', '=', tagId)
    .orderBy('id', 'asc')
    .limit(limit)
    .execute()
    .then((rows) => rows.map(toFileRow));
}

export function updateFileRow(db: Db, id: string, changes: Partial<Pick<FilesTable, 'name' | 'description' | 'updated_at'>>) {
  return db.updateTable('files').set(changes).where('id', '=', id).execute();
}

/** Removes deleted files' blobs once their rows are gone for good; a failure leaves only garbage. */
function removeBlobsAfterCommit(db: Db, ctx: Pick<ServiceContext, 'blobs' | 'log'>, ids: readonly string[]): Promise<void> {
  return afterCommit(db, async () => {
    for (const id of ids) {
      await ctx.blobs.delete(id).catch((error: unknown) => {
        ctx.log.warn({ ...failureFields(error), file_id: id }, 'could not remove a deleted file from storage');
      });
    }
  });
}

/** Deletes a file's row; false when a concurrent deletion got there first. */
export async function deleteFileRow(db: Db, ctx: Pick<ServiceContext, 'blobs' | 'log'>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('files').where('id', '=', id).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) return false;
  await removeBlobsAfterCommit(db, ctx, [id]);
  return true;
}

export function incrementDownloadCount(db: Db, id: string) {
  return db
    .updateTable('files')
    .set((eb) => ({ download_count: eb('download_count', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** The ids among `ids` that are files of `tagId` with one of `mimeTypes`. */
export async function findFileIdsOfTag(db: Db, tagId: string, ids: readonly string[], mimeTypes: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('files')
    .select('id')
    .where('tag_id', '=', tagId)
    .where('id', 'in', [...ids])
    .where('mime_type', 'in', [...mimeTypes])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Deletes every file row of a tag; returns the bytes they held. */
export async function deleteFilesOfTag(db: Db, ctx: Pick<ServiceContext, 'blobs' | 'log'>, tagId: string): Promise<number> {
  const rows = await db.selectFrom('files').select(['id', 'size']).where('tag_id', '=', tagId).execute();
  if (rows.length === 0) return 0;
  await db.deleteFrom('files').where('tag_id', '=', tagId).execute();
  await removeBlobsAfterCommit(
    db,
    ctx,
    rows.map((r) => r.id),
  );
  return rows.reduce((sum, r) => sum + Number(r.size), 0);
}

// Storage usage: one row per account and environment.

export async function storageUsed(db: Db, accountId: string, environment: Environment): Promise<number> {
  const row = await db
    .selectFrom('storage_usage')
    .select('used_bytes')
    .where('account_id', '=', accountId)
    .where('environment', '=', environment)
    .executeTakeFirst();
  return row ? Number(row.used_bytes) : 0;
}

/**
 * Adds `bytes` to the account's usage only if the total stays within `limit`; false when it
 * would not. One conditional UPDATE, so concurrent reservations cannot both pass: PostgreSQL
 * re-checks the condition on the row the other transaction committed, SQLite runs one writer.
 */
export async function reserveStorage(
  db: Db,
  accountId: string,
  environment: Environment,
  bytes: number,
  limit: number,
  at: string,
): Promise<boolean> {
  await db
    .insertInto('storage_usage')
    .values({ account_id: accountId, environment, used_bytes: 0, updated_at: at })
    .onConflict((oc) => oc.columns(['account_id', 'environment']).doNothing())
    .execute();
  const result = await db
    .updateTable('storage_usage')
    .set({ used_bytes: sql<number>`used_bytes + ${bytes}`, updated_at: at })
    .where('account_id', '=', accountId)
    .where('environment', '=', environment)
    .where((eb) => eb(eb('used_bytes', '+', bytes), '<=', limit))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives `bytes` back (deleted files). */
export async function releaseStorage(db: Db, accountId: string, environment: Environment, bytes: number, at: string): Promise<void> {
  if (bytes === 0) return;
  await db
    .updateTable('storage_usage')
    .set({ used_bytes: sql<number>`used_bytes - ${bytes}`, updated_at: at })
    .where('account_id', '=', accountId)
    .where('environment', '=', environment)
    .execute();
}
