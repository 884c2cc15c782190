import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import type { ViewsTable } from '../../db/schema.js';
import { insertAllAtomically } from '../../db/bulk-insert.js';
import * as repo from './analytics.repository.js';

interface Pending {
  view: ViewsTable;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 500;

/**
 * Group commit: views that arrive while a transaction is being written wait for the next one,
 * which writes them all together. record() resolves only after the commit, so a page is never
 * answered for a view that a crash could still lose, and throughput does not pay one
 * transaction per view. The page waits for the raw view and its pending_views row only; the
 * rollups and the view's events follow in view-rollup.ts, which the row guarantees.
 */
export class ViewRecorder {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  record(view: ViewsTable): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ view, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  /** Waits for everything queued so far (shutdown). */
  async flush(): Promise<void> {
    await this.writing;
  }

  private async drain(): Promise<void> {
    // Let the requests of this event-loop turn join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await writeBatch(this.db, batch.map((item) => item.view));
        for (const item of batch) item.resolve();
      } catch (error) {
        this.log.error({ err: error, views: batch.length }, 'could not record views');
        for (const item of batch) item.reject(error);
      }
    }
    this.writing = undefined;
  }
}

function writeBatch(db: Db, views: ViewsTable[]): Promise<unknown> {
  return insertAllAtomically(db, [repo.viewsInsert(views), repo.pendingViewsInsert(views.map((view) => view.id))]);
}
