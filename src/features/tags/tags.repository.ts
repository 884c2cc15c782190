import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { TagsTable } from '../../db/schema.js';
import { afterCommit } from '../../db/transaction.js';
import { announceChange } from '../../perf/exact-cache.js';
import { inScope, type Scope } from '../accounts/index.js';

/** All SQL for tags and their short ids. */

export function findTagById(db: Db, id: string) {
  return db
    .selectFrom('tags')
    .innerJoin('users', 'users.id', 'tags.owner_id')
    .selectAll('tags')
    .select('users.email as owner_email')
    .where('tags.id', '=', id)
    .executeTakeFirst();
}

export function findTagByShortId(db: Db, shortId: string) {
  return db
    .selectFrom('tags')
    .innerJoin('users', 'users.id', 'tags.owner_id')
    .selectAll('tags')
    .select('users.email as owner_email')
    .where('tags.short_id', '=', shortId)
    .executeTakeFirst();
}

export type TagRow = NonNullable<Awaited<ReturnType<typeof findTagById>>>;

/**
 * Claims a short id for `tagId`, for good; false when it, or an address differing only by
 * case, was ever issued before (short_ids keeps every one, and its folded form is unique).
 */
export async function claimShortId(db: Db, shortId: string, tagId: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('short_ids')
    .values({ short_id: shortId, folded: shortId.toLowerCase(), tag_id: tagId, created_at: at })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The issued addresses `shortId` matches: itself, and any differing from it only by case. */
export function findAddresses(db: Db, shortId: string) {
  return db
    .selectFrom('short_ids')
    .select(['short_id', 'tag_id'])
    .where((eb) => eb.or([eb('short_id', '=', shortId), eb('folded', '=', shortId.toLowerCase())]))
    .execute();
}

/** A tag's own address written with other cases: the address itself changes, its history stays one row. */
export async function recaseShortId(db: Db, from: string, to: string): Promise<void> {
  await db.updateTable('short_ids').set({ short_id: to }).where('short_id', '=', from).execute();
}

export function insertTag(db: Db, tag: TagsTable) {
  return db.insertInto('tags').values(tag).execute();
}

/** Cached tag rows (findTag) are dropped in this process once a change commits. */
const tagsChanged = () => announceChange('tags');

/**
 * Every change takes the next version in SQL, never a version read earlier: two concurrent
 * changes (an update and a file upload, say) cannot both claim one version, so a page cached
 * under a version always shows that version.
 */
export async function updateTagRow(db: Db, id: string, changes: Omit<Partial<TagsTable>, 'version'>) {
  await db
    .updateTable('tags')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .execute();
  await afterCommit(db, tagsChanged);
}

export async function deleteTagRow(db: Db, id: string) {
  await db.deleteFrom('tags').where('id', '=', id).execute();
  await afterCommit(db, tagsChanged);
}

export type TagSort = 'created' | 'updated' | 'title';

export interface TagListQuery {
  folderId?: string;
  /** Tags whose title contains this text, whatever its case. */
  search?: string;
  sort: TagSort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export async function listTags(db: Db, scope: Scope, query: TagListQuery) {
  let base = db.selectFrom('tags').where(inScope(scope));
  if (query.folderId) base = base.where('folder_id', '=', query.folderId);
  if (query.search) base = base.where(sql<boolean>`lower(title) like ${containing(query.search)} escape '\\'`);
  const { total } = await base.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
  let page = base.select([
    'id',
    'short_id',
    'title',
    'folder_id',
    'read_permission',
    'write_permission',
    'status',
    'environment',
    'publish_at',
    'expires_at',
    'max_views',
    'password_hash',
    'created_at',
    'updated_at',
  ]);
  // The id breaks ties so pages never overlap; ids sort in creation order.
  if (query.sort === 'title') page = page.orderBy((eb) => eb.fn('lower', ['title']), query.order);
  else if (query.sort === 'updated') page = page.orderBy('updated_at', query.order);
  const rows = await page.orderBy('id', query.order).limit(query.limit).offset(query.offset).execute();
  return { total: Number(total), rows };
}

/** A LIKE pattern matching text that contains `text` (lowercased): its own % and _ match only themselves. */
function containing(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** How many tags of the scope each folder holds (folders holding none are absent). */
export async function countTagsByFolder(db: Db, scope: Scope): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tags')
    .select(['folder_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where(inScope(scope))
    .where('folder_id', 'is not', null)
    .groupBy('folder_id')
    .execute();
  return new Map(rows.map((row) => [row.folder_id!, Number(row.count)]));
}

/** The views counted against each capped tag's max_views (tags never counted are absent). */
export async function countedViews(db: Db, tagIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.selectFrom('tag_view_counts').select(['tag_id', 'views']).where('tag_id', 'in', tagIds).execute();
  return new Map(rows.map((row) => [row.tag_id, Number(row.views)]));
}

export function countTagsInFolder(db: Db, folderId: string) {
  return db
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('folder_id', '=', folderId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.count));
}

export async function findTestTagIdsCreatedBefore(db: Db, before: string): Promise<string[]> {
  const rows = await db.selectFrom('tags').select('id').where('environment', '=', 'test').where('created_at', '<', before).execute();
  return rows.map((r) => r.id);
}

/** Ids and titles of every tag a scope reaches (exports). */
export function tagsInScope(db: Db, scope: Scope) {
  return db.selectFrom('tags').select(['id', 'title', 'access_logging']).where(inScope(scope)).orderBy('id').execute();
}
