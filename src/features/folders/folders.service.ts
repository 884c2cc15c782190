import type { Db } from '../../db/database.js';
import type { FoldersTable } from '../../db/schema.js';
import { invalidRequest, validationError } from '../../errors.js';
import { cleanLabel } from '../../lib/text-fields.js';
import { isoNow, type Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { isInScope, requireAccess, type Scope } from '../accounts/scope.js';
import { countTagsInFolder } from '../tags/tags.repository.js';
import * as repo from './folders.repository.js';

export interface FolderView {
  id: string;
  name: string;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
}

export function toFolderView(row: FoldersTable): FolderView {
  return { id: row.id, name: row.name, parent_id: row.parent_id, created_at: row.created_at, updated_at: row.updated_at };
}

/** A folder id given by the caller must name one of the caller's folders: else 400 on `field`. */
export async function requireOwnFolder(db: Db, scope: Scope, folderId: string, field: string): Promise<FoldersTable> {
  const folder = await repo.findFolder(db, folderId);
  if (!folder || !isInScope(folder, scope)) throw validationError(field, `${field} does not name one of your folders`);
  return folder;
}

export async function createFolder(db: Db, clock: Clock, scope: Scope, input: { name: string; parent_id?: string | null }) {
  if (input.parent_id) await requireOwnFolder(db, scope, input.parent_id, 'parent_id');
  const now = isoNow(clock);
  const row: FoldersTable = {
    id: newId('fld'),
    environment: scope.environment,
    owner_id: scope.userId,
    organization_id: scope.organizationId,
    parent_id: input.parent_id ?? null,
    name: cleanLabel(input.name, 'name'),
    created_at: now,
    updated_at: now,
  };
  await repo.insertFolder(db, row);
  return toFolderView(row);
}

export async function getFolder(db: Db, scope: Scope, id: string) {
  return toFolderView(requireAccess(await repo.findFolder(db, id), scope, 'Folder'));
}

export async function listFolders(db: Db, scope: Scope, query: { parent_id?: string; limit: number; offset: number }) {
  const { total, rows } = await repo.listFolders(db, scope, { parentId: query.parent_id, limit: query.limit, offset: query.offset });
  return { total, folders: rows.map(toFolderView) };
}

export async function updateFolder(db: Db, clock: Clock, scope: Scope, id: string, input: { name?: string; parent_id?: string | null }) {
  const folder = requireAccess(await repo.findFolder(db, id), scope, 'Folder');
  const changes: Partial<FoldersTable> = { updated_at: isoNow(clock) };
  if (input.name !== undefined) changes.name = cleanLabel(input.name, 'name');
  if (input.parent_id !== undefined) {
    if (input.parent_id !== null) await rejectCycle(db, scope, folder.id, input.parent_id);
    changes.parent_id = input.parent_id;
  }
  await repo.updateFolderRow(db, id, changes);
  return toFolderView({ ...folder, ...changes });
}

/** A folder cannot be moved into itself or into one of its own descendants. */
async function rejectCycle(db: Db, scope: Scope, folderId: string, parentId: string): Promise<void> {
  let current: string | null = parentId;
  while (current) {
    if (current === folderId) throw validationError('parent_id', 'a folder cannot be placed inside itself or its subfolders');
    current = (await requireOwnFolder(db, scope, current, 'parent_id')).parent_id;
  }
}

export async function deleteFolder(db: Db, scope: Scope, id: string): Promise<void> {
  requireAccess(await repo.findFolder(db, id), scope, 'Folder');
  if ((await countTagsInFolder(db, id)) > 0) throw invalidRequest('The folder still holds tags; move or delete them first');
  if ((await repo.countChildFolders(db, id)) > 0) throw invalidRequest('The folder still holds folders; move or delete them first');
  await repo.deleteFolderRow(db, id);
}
