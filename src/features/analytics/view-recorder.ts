import type { FastifyBaseLogger } from 'fastify';
import { isPostgres, type Db } from '../../db/database.js';
import type { ViewsTable } from '../../db/schema.js';
import type { Metrics } from '../../lib/metrics.js';
import { insertAllAtomically } from '../../perf/bulk-insert.js';
import * as repo from './analytics.repository.js';

interface Pending {
  view: ViewsTable;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 500;

/**
 * Group commit: views that arrive while a group is being written wait for the next one, which
 * writes them all together. record() resolves only after the commit, so a page is never
 * answered for a view that a crash could still lose, and throughput does not pay one
 * transaction per view. The page waits for the raw view and its pending_views row only; the
 * rollups and the view's events follow in view-rollup.ts, which the row guarantees.
 *
 * How many groups are written at once: on SQLite one (better-sqlite3 writes synchronously, on
 * this thread, and the file has one writer). On PostgreSQL a group's statement is a network
 * round trip that leaves this process idle, so several go at once, on connections of the pool,
 * leaving the rest of the pool to the requests themselves.
 */
export class ViewRecorder {
  private queue: Pending[] = [];
  private readonly writes = new Set<Promise<void>>();
  private starting = false;
  private readonly maxWrites: number;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    poolSize: number,
    private readonly metrics?: Metrics,
  ) {
    this.maxWrites = isPostgres(db) ? Math.max(1, Math.floor(poolSize / 2)) : 1;
  }

  record(view: ViewsTable): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ view, resolve, reject });
      if (!this.starting && this.writes.size < this.maxWrites) {
        this.starting = true;
        // Let the requests of this event-loop turn join the group.
        setImmediate(() => {
          this.starting = false;
          this.startWrites();
        });
      }
    });
  }

  /** Waits for everything queued so far (shutdown). */
  async flush(): Promise<void> {
    this.startWrites();
    while (this.writes.size > 0) await Promise.all(this.writes);
  }

  private startWrites(): void {
    while (this.queue.length > 0 && this.writes.size < this.maxWrites) {
      const write = this.write(this.queue.splice(0, MAX_BATCH)).finally(() => {
        this.writes.delete(write);
        // The views that arrived meanwhile form the next group.
        this.startWrites();
      });
      this.writes.add(write);
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      await insertAllAtomically(this.db, [
        repo.viewsInsert(batch.map((item) => item.view)),
        repo.pendingViewsInsert(batch.map((item) => item.view.id)),
      ]);
      this.metrics?.viewsRecorded.inc(batch.length);
      for (const item of batch) item.resolve();
    } catch (error) {
      this.log.error({ err: error, views: batch.length }, 'could not record views');
      for (const item of batch) item.reject(error);
    }
  }
}
