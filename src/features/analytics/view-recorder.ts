import type { Db } from '../../db/database.js';
import { failureFields } from '../../errors.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Logger } from 'pino';
import * as repo from './ingestion.repository.js';
import { encodeView, type RecordedView } from './view-record.js';

/** Views a group takes at most: its row, and its statement's parameter, stay a few hundred kilobytes. */
const MAX_BATCH = 500;

interface Pending {
  /** The view's record (view-record.ts). */
  record: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: views that arrive while a group is being written wait for the next one, which
 * appends all their records to the inbox as one row. record() resolves only after that
 * commit, so a page is never answered for a view that a crash could still lose, and throughput
 * does not pay one transaction per view. A group that cannot be written (a full disk) rejects
 * every view in it: none is claimed as recorded (the page goes out uncounted,
 * src/public/pages.ts). The page waits for its record only: the indexed views row, the rollups
 * and the view's events follow when the inbox is ingested (view-rollup.ts), in batches far
 * larger than a group, which the record guarantees.
 *
 * One group is written at a time. On SQLite the file has one writer anyway. On PostgreSQL most
 * of a group's cost is the same whatever its size (its transaction and commit): views that
 * arrive while a group is out make the next group larger rather than groups of their own, and a
 * recorded view costs less CPU than with several groups at once (src/perf/README.md).
 */
export class ViewRecorder {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  private starting = false;

  constructor(
    private readonly db: Db,
    private readonly log: Pick<Logger, 'error'>,
    private readonly metrics?: Metrics,
  ) {}

  record(view: RecordedView): Promise<void> {
    const record = encodeView(view);
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.starting && !this.writing) {
        this.starting = true;
        // Let the requests of this event-loop turn join the group.
        setImmediate(() => {
          this.starting = false;
          this.startWrite();
        });
      }
    });
  }

  /** Waits for everything queued so far (shutdown). */
  async flush(): Promise<void> {
    this.startWrite();
    while (this.writing) await this.writing;
  }

  private startWrite(): void {
    if (this.writing || this.queue.length === 0) return;
    this.writing = this.write(this.queue.splice(0, MAX_BATCH)).finally(() => {
      this.writing = undefined;
      // The views that arrived meanwhile form the next group.
      this.startWrite();
    });
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      await repo.appendToInbox(this.db, `[${batch.map((item) => item.record).join(',')}]`, batch.length);
      this.metrics?.viewsRecorded.inc(batch.length);
      for (const item of batch) item.resolve();
    } catch (error) {
      this.log.error({ ...failureFields(error), views: batch.length }, 'could not record views');
      for (const item of batch) item.reject(error);
    }
  }
}
