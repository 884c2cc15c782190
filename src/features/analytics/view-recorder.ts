import type { Db } from '../../db/database.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Logger } from 'pino';
import { GroupCommit } from './group-commit.js';
import * as repo from './ingestion.repository.js';
import { encodeView, type RecordedView } from './view-record.js';

/** Views a group takes at most: its row, and its statement's parameter, stay a few hundred kilobytes. */
const MAX_GROUP = 500;

/**
 * Views, committed in groups (group-commit.ts): a group's records are appended to the inbox as
 * one row. A view that cannot be recorded is not claimed as recorded (the page goes out
 * uncounted, src/public/pages.ts). The page waits for its record only: the indexed views row,
 * the rollups and the view's events follow when the inbox is ingested (view-rollup.ts), in
 * batches far larger than a group, which the record guarantees.
 */
export class ViewRecorder {
  private readonly groups: GroupCommit<string>;

  constructor(db: Db, log: Pick<Logger, 'error'>, metrics?: Metrics) {
    this.groups = new GroupCommit(
      {
        unit: 'views',
        maxGroup: MAX_GROUP,
        async write(records) {
          await repo.appendToInbox(db, `[${records.join(',')}]`, records.length);
          metrics?.viewsRecorded.inc(records.length);
        },
      },
      log,
    );
  }

  /** Resolves once the view's record is committed. */
  record(view: RecordedView): Promise<void> {
    return this.groups.add(encodeView(view));
  }

  /** Waits for everything queued so far (shutdown). */
  flush(): Promise<void> {
    return this.groups.flush();
  }
}
