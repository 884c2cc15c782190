import type { TagDependent } from '../../context.js';
import { lockTagRow, lockViewRollup } from '../../db/locks.js';
import * as repo from './analytics.repository.js';
import { rollUpViewsIn } from './view-rollup.js';

/**
 * What tags must do on analytics' behalf (context.ts, TagDependent), in the transaction that
 * deletes a tag: its views and rollups go with it. It takes the view rollup's lock first (PostgreSQL), so a rollup in progress finishes
 * before and the next waits until the tag is gone: a rollup locks views' pending rows, then the
 * tag's rollup rows, the opposite of this deletion's order. Then the tag's row, so a beacon of
 * one of its views finishes before, and the next waits at that row until the tag is gone (a
 * beacon locks its view's row, then the tag's rollup rows: also the opposite order). Its pending views are rolled up
 * first, so the views the tag had before its deletion still yield their events (before its
 * tag.deleted); a view recorded while the deletion runs finds no tag when it is rolled up, and
 * goes (view-rollup.ts).
 */
export const analyticsTagDependent: TagDependent = {
  async deleteWithTag(_ctx, trx, tag) {
    await lockViewRollup(trx);
    await lockTagRow(trx, tag.id, 'update');
    if (await repo.tagHasPendingViews(trx, tag.id)) await rollUpViewsIn(trx);
    await repo.deleteTagAnalytics(trx, tag.id);
  },
};
