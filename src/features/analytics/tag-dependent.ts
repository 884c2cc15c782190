import { setImmediate } from 'node:timers/promises';
import type { TagDependent } from '../../context.js';
import { lockTagRow, lockViewRollup } from '../../db/locks.js';
import { transaction } from '../../db/transaction.js';
import { anyInboxView } from './ingestion.repository.js';
import * as repo from './tag-dependent.repository.js';
import { rollUpViewsIn } from './view-rollup.js';

/**
 * What tags must do on analytics' behalf (context.ts, TagDependent), in the transaction that
 * deletes a tag: its views, rollups and link clicks go with it. It takes the view rollup's lock
 * first (PostgreSQL), so an ingestion in progress finishes before and the next waits until the
 * tag is gone. Then the tag's row, so a beacon of one of its views, or a group of clicks that
 * holds it (clicks.repository.ts), finishes before, and the next waits at that row until the tag
 * is gone (a beacon locks its view's row, then the tag's rollup rows: the opposite of this
 * deletion's order). The inbox is ingested first, so the views the tag had
 * before its deletion still yield their events (before its tag.deleted); a view answered while
 * the deletion runs finds no tag when it is ingested, and goes (view-rollup.ts).
 */
/** Views deleted per transaction before the tag's own: a few milliseconds of SQLite's thread. */
const VIEWS_PER_CHUNK = 2000;

export const analyticsTagDependent: TagDependent = {
  /**
   * Before the tag's transaction: its stored views, in transactions of 2,000, each locking the
   * tag's row first as the deletion does (locks.ts), so a beacon of one of them waits and then
   * finds it gone. They are counted in the rollups already, which stay until the tag goes: the
   * tag's reports do not change meanwhile, only its view records (views, logs, export) shrink,
   * oldest first. Views still in the inbox wait for the tag's transaction, which ingests them
   * (their events go out) and deletes them with any view stored meanwhile.
   */
  async deleteBeforeTag(ctx, tag) {
    for (;;) {
      const deleted = await transaction(ctx.db, async (trx) => {
        await lockTagRow(trx, tag.id, 'update');
        return repo.deleteViewsOfTag(trx, tag.id, VIEWS_PER_CHUNK);
      });
      if (deleted < VIEWS_PER_CHUNK) return;
      await setImmediate();
    }
  },
  async deleteWithTag(_ctx, trx, tag) {
    await lockViewRollup(trx);
    await lockTagRow(trx, tag.id, 'update');
    if (await anyInboxView(trx)) await rollUpViewsIn(trx);
    await repo.deleteTagAnalytics(trx, tag.id);
  },
};
