import type { ServiceContext } from '../../context.js';
import { isForeignKeyViolation } from '../../db/database.js';
import type { FoldersTable } from '../../db/schema.js';
import { checkFields, invalidRequest, validationError } from '../../errors.js';
import { transaction } from '../../db/transaction.js';
import { isoNow } from '../../lib/clock.js';
import { isId, newId } from '../../lib/ids.js';
import { cleanLabel } from '../../lib/text-fields.js';
import { isInScope, requireAccess, requirePermission, scopeOf, type Actor, type Scope } from '../accounts/index.js';
import * as repo from './folders.repository.js';
import { recordAudit } from '../audit/index.js';

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
export async function requireOwnFolder(ctx: ServiceContext, scope: Scope, folderId: string, field: string): Promise<FoldersTable> {
  const folder = isId('fld', folderId) ? await repo.findFolder(ctx.db, folderId) : undefined;
  if (!folder || !isInScope(folder, scope)) throw validationError(field, `${field} does not name one of your folders`);
  return folder;
}

export async function createFolder(ctx: ServiceContext, actor: Actor, input: { name: string; parent_id?: string | null }) {
  requirePermission(actor, 'tags:write');
  const scope = scopeOf(actor);
  const { name } = await checkFields({
    parent: () => input.parent_id && requireOwnFolder(ctx, scope, input.parent_id, 'parent_id'),
    name: () => cleanLabel(input.name, 'name'),
  });
  const now = isoNow(ctx.clock);
  const row: FoldersTable = {
    id: newId('fld'),
    environment: scope.environment,
    owner_id: scope.userId,
    organization_id: scope.organizationId,
    parent_id: input.parent_id ?? null,
    name,
    created_at: now,
    updated_at: now,
  };
  await transaction(ctx.db, async (trx) => {
    await repo.insertFolder(trx, row);
    await recordAudit(ctx, trx, actor, { action: 'folder.created', targetId: row.id, environment: row.environment });
  });
  return toFolderView(row);
}

export async function getFolder(ctx: ServiceContext, actor: Actor, input: { id: string }) {
  requirePermission(actor, 'tags:read');
  return toFolderView(requireAccess(await repo.findFolder(ctx.db, input.id), scopeOf(actor), 'Folder'));
}

export async function listFolders(ctx: ServiceContext, actor: Actor, query: { parent_id?: string; limit: number; offset: number }) {
  requirePermission(actor, 'tags:read');
  const { total, rows } = await repo.listFolders(ctx.db, scopeOf(actor), {
    parentId: query.parent_id,
    limit: query.limit,
    offset: query.offset,
  });
  return { total, folders: rows.map(toFolderView) };
}

export async function updateFolder(ctx: ServiceContext, actor: Actor, input: { id: string; name?: string; parent_id?: string | null }) {
  requirePermission(actor, 'tags:write');
  const scope = scopeOf(actor);
  const folder = requireAccess(await repo.findFolder(ctx.db, input.id), scope, 'Folder');
  const parentId = input.parent_id;
  const { name } = await checkFields({
    name: () => (input.name === undefined ? undefined : cleanLabel(input.name, 'name')),
    parent: () => parentId && rejectCycle(ctx, scope, folder.id, parentId),
  });
  const changes: Partial<FoldersTable> = { updated_at: isoNow(ctx.clock) };
  if (name !== undefined) changes.name = name;
  if (input.parent_id !== undefined) changes.parent_id = input.parent_id;
  await transaction(ctx.db, async (trx) => {
    await repo.updateFolderRow(trx, folder.id, changes);
    await recordAudit(ctx, trx, actor, { action: 'folder.updated', targetId: folder.id, environment: folder.environment });
  });
  return toFolderView({ ...folder, ...changes });
}

/** A folder cannot be moved into itself or into one of its own descendants. */
async function rejectCycle(ctx: ServiceContext, scope: Scope, folderId: string, parentId: string): Promise<void> {
  let current: string | null = parentId;
  while (current) {
    if (current === folderId) throw validationError('parent_id', 'a folder cannot be placed inside itself or its subfolders');
    current = (await requireOwnFolder(ctx, scope, current, 'parent_id')).parent_id;
  }
}

/**
 * Only an empty folder can be deleted. The database's foreign keys (tags.folder_id,
 * folders.parent_id) refuse the deletion of one that still holds tags or folders, atomically.
 */
export async function deleteFolder(ctx: ServiceContext, actor: Actor, input: { id: string }): Promise<void> {
  requirePermission(actor, 'tags:delete');
  const folder = requireAccess(await repo.findFolder(ctx.db, input.id), scopeOf(actor), 'Folder');
  try {
    await transaction(ctx.db, async (trx) => {
      await repo.deleteFolderRow(trx, folder.id);
      await recordAudit(ctx, trx, actor, { action: 'folder.deleted', targetId: folder.id, environment: folder.environment });
    });
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    if ((await repo.countChildFolders(ctx.db, folder.id)) > 0) {
      throw invalidRequest('The folder still holds folders; move or delete them first');
    }
    throw invalidRequest('The folder still holds tags; move or delete them first');
  }
}

/** Sandbox purge: empty test folders created before `before`, from the leaves up. */
export async function purgeEmptyTestFoldersCreatedBefore(ctx: ServiceContext, before: string): Promise<number> {
  let folders = 0;
  for (;;) {
    const deleted = Number((await repo.deleteEmptyTestFoldersCreatedBefore(ctx.db, before)).numDeletedRows);
    if (deleted === 0) return folders;
    folders += deleted;
  }
}
