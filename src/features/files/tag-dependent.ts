import type { ServiceContext, TagDependent } from '../../context.js';
import { validationError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { IMAGE_MIME_TYPES } from './file-types.js';
import * as repo from './files.repository.js';

/**
 * What tags must do on files' behalf (context.ts, TagDependent): image blocks must show image
 * files of their own tag, and a tag's files go with it.
 */
export const filesTagDependent: TagDependent = {
  /**
   * 400 validation_error naming `content[i].file_id`. A tag being created has no files yet, so
   * `tagId` null refuses every image block: upload first, then add the block with PUT.
   */
  async checkBlocks(ctx: ServiceContext, tagId, blocks, field) {
    const images = blocks.map((block, index) => ({ block, index })).filter(({ block }) => block.type === 'image');
    if (images.length === 0) return;
    const found = tagId
      ? await repo.findFileIdsOfTag(ctx.db, tagId, [...new Set(images.map(({ block }) => block.file_id!))], IMAGE_MIME_TYPES)
      : new Set<string>();
    const missing = images.find(({ block }) => !found.has(block.file_id!));
    if (missing) {
      const name = `${field}[${missing.index}].file_id`;
      throw validationError(
        name,
        tagId
          ? `${name} must be the id of an image file of this tag`
          : `${name}: a new tag has no files yet; create the tag, upload the image, then add the image block with PUT`,
      );
    }
  },

  /** The tag's file rows go and their storage is given back; the blobs go once that commits. */
  async deleteWithTag(ctx, trx, tag) {
    const bytes = await repo.deleteFilesOfTag(trx, ctx, tag.id);
    if (bytes > 0) await repo.releaseStorage(trx, tag.organization_id ?? tag.owner_id, tag.environment, bytes, isoNow(ctx.clock));
  },
};
