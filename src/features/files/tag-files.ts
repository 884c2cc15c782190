import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { TagsTable } from '../../db/schema.js';
import { validationError } from '../../errors.js';
import { IMAGE_MIME_TYPES } from './file-types.js';
import * as repo from './files.repository.js';
import { ImageVariants } from './images.js';
import { createBlobStorage } from '../../lib/blob-storage.js';

/**
 * What other features need from files, without depending on the files service (which itself
 * uses the tags service): removing a tag's files, and checking image blocks.
 */

type TagOwner = Pick<TagsTable, 'id' | 'environment' | 'owner_id' | 'organization_id'>;

/**
 * Deletes the rows of every file of `tag` and gives their storage back. Call it inside the
 * transaction that deletes the tag, then `removeFileBlobs` with the result after the commit.
 */
export async function deleteFilesOfTag(trx: Db, tag: TagOwner, at: string): Promise<string[]> {
  const { ids, bytes } = await repo.deleteFilesOfTag(trx, tag.id);
  await repo.releaseStorage(trx, tag.organization_id ?? tag.owner_id, tag.environment, bytes, at);
  return ids;
}

/** Removes the blobs and derived images of deleted files. Never throws: leftovers are only garbage. */
export async function removeFileBlobs(config: Pick<Config, 'dataDir'>, ids: readonly string[]): Promise<void> {
  const storage = createBlobStorage(config);
  const images = new ImageVariants(config.dataDir, storage);
  for (const id of ids) {
    await Promise.all([storage.delete(id), images.evict(id)]).catch(() => undefined);
  }
}

/**
 * Sandbox purge: deletes the file rows of test tags created before `before`, gives their
 * storage back, and returns the ids whose blobs are to be removed after the commit.
 */
export async function purgeFilesOfTestTagsCreatedBefore(db: Db, before: string, at: string): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const files = await repo.findFilesOfTestTagsCreatedBefore(trx, before);
    if (files.length === 0) return [];
    const byAccount = new Map<string, number>();
    for (const file of files) {
      const account = file.organization_id ?? file.owner_id;
      byAccount.set(account, (byAccount.get(account) ?? 0) + file.size);
    }
    const ids = files.map((f) => f.id);
    for (let i = 0; i < ids.length; i += 500) await repo.deleteFilesByIds(trx, ids.slice(i, i + 500));
    for (const [account, bytes] of byAccount) await repo.releaseStorage(trx, account, 'test', bytes, at);
    return ids;
  });
}

interface ImageBlockLike {
  type: string;
  file_id?: string;
}

/**
 * An image block must show an image file of its own tag (400 validation_error naming
 * `content[i].file_id`). A tag being created has no files yet, so `tagId` null refuses every
 * image block: upload first, then add the block with PUT.
 */
export async function requireImageFilesOfTag(db: Db, tagId: string | null, blocks: readonly ImageBlockLike[], path: string): Promise<void> {
  const images = blocks.map((block, index) => ({ block, index })).filter(({ block }) => block.type === 'image');
  if (images.length === 0) return;
  const found = tagId
    ? await repo.findFileIdsOfTag(db, tagId, [...new Set(images.map(({ block }) => block.file_id!))], IMAGE_MIME_TYPES)
    : new Set<string>();
  const missing = images.find(({ block }) => !found.has(block.file_id!));
  if (missing) {
    const field = `${path}[${missing.index}].file_id`;
    throw validationError(
      field,
      tagId
        ? `${field} must be the id of an image file of this tag`
        : `${field}: a new tag has no files yet; create the tag, upload the image, then add the image block with PUT`,
    );
  }
}
