import type { Db } from '../../db/database.js';
import type { FoldersTable } from '../../db/schema.js';
import { inScope, type Scope } from '../accounts/index.js';

/** All SQL for folders. */

export function findFolder(db: Db, id: string) {
  return db.selectFrom('folders').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertFolder(db: Db, folder: FoldersTable) {
  return db.insertInto('folders').values(folder).execute();
}

export function updateFolderRow(db: Db, id: string, changes: Partial<FoldersTable>) {
  return db.updateTable('folders').set(changes).where('id', '=', id).execute();
}

export function deleteFolderRow(db: Db, id: string) {
  return db.deleteFrom('folders').where('id', '=', id).execute();
}

export async function listFolders(db: Db, scope: Scope, query: { parentId?: string; limit: number; offset: number }) {
  let base = db.selectFrom('folders').where(inScope(scope));
  if (query.parentId) base = base.where('parent_id', '=', query.parentId);
  const { total } = await base.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('id', 'asc').limit(query.limit).offset(query.offset).execute();
  return { total: Number(total), rows };
}

export function countChildFolders(db: Db, id: string) {
  return db
    .selectFrom('folders')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('parent_id', '=', id)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.count));
}

/** Empty test folders created before `before`; folders still holding tags or folders stay. */
export function deleteEmptyTestFoldersCreatedBefore(db: Db, before: string) {
  return db
    .deleteFrom('folders')
    .where('environment', '=', 'test')
    .where('created_at', '<', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('tags').select('tags.id').whereRef('tags.folder_id', '=', 'folders.id'))))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('folders as child').select('child.id').whereRef('child.parent_id', '=', 'folders.id'))))
    .executeTakeFirst();
}
