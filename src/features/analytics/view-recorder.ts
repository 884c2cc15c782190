import type { FastifyBaseLogger } from 'fastify';
import { isPostgres, type Db } from '../../db/database.js';
import type { Metrics } from '../../lib/metrics.js';
import * as repo from './analytics.repository.js';
import { encodeView, type RecordedView } from './view-record.js';

/** Views a group takes at most: its statement's one parameter stays a few hundred kilobytes. */
const MAX_BATCH = 500;

interface Pending {
  /** The view's record (view-record.ts). */
  record: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: views that arrive while a group is being written wait for the next one, which
 * appends all their records to the inbox in one statement. record() resolves only after that
 * commit, so a page is never answered for a view that a crash could still lose, and throughput
 * does not pay one transaction per view. The page waits for its record only: the indexed views
 * row, the rollups and the view's events follow when the inbox is ingested (view-rollup.ts), in
 * batches far larger than a group, which the record guarantees.
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

  record(view: RecordedView): Promise<void> {
    const record = encodeView(view);
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
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
      await repo.appendToInbox(this.db, `[${batch.map((item) => item.record).join(',')}]`);
      this.metrics?.viewsRecorded.inc(batch.length);
      for (const item of batch) item.resolve();
    } catch (error) {
      this.log.error({ err: error, views: batch.length }, 'could not record views');
      for (const item of batch) item.reject(error);
    }
  }
}
