import type { TagDependent } from '../../context.js';
import { deleteSharesOfTag } from './shares.repository.js';

/** What tags must do on shares' behalf (context.ts, TagDependent): a tag's shares go with it. */
export const sharesTagDependent: TagDependent = {
  async deleteWithTag(_ctx, trx, tag) {
    await deleteSharesOfTag(trx, tag.id);
  },
};
