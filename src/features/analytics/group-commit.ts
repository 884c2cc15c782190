import { failureFields } from '../../errors.js';
import type { Logger } from 'pino';

interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How a group commit writes, and names in its log, what it is given. */
export interface GroupWriter<T> {
  /** What the items are, plural, as the failure log counts them: "views", "clicks". */
  unit: string;
  /** Items a group takes at most. */
  maxGroup: number;
  /** Writes one group durably: resolves once it is committed. */
  write(group: T[]): Promise<void>;
}

/**
 * Group commit: items that arrive while a group is being written wait for the next one, which
 * writes them all with one `write`. add() resolves only after that commit, so a request is never
 * answered for an item a crash could still lose, and throughput does not pay one transaction per
 * item. A group that cannot be written (a full disk) rejects every item in it: none is claimed
 * as stored.
 *
 * One group is written at a time. On SQLite the file has one writer anyway. On PostgreSQL most
 * of a group's cost is the same whatever its size (its transaction and commit): items that
 * arrive while a group is out make the next group larger rather than groups of their own, and
 * an item costs less CPU than with several groups at once (src/perf/README.md).
 */
export class GroupCommit<T> {
  private queue: Pending<T>[] = [];
  private writing: Promise<void> | undefined;
  private starting = false;

  constructor(
    private readonly writer: GroupWriter<T>,
    private readonly log: Pick<Logger, 'error'>,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
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
    this.writing = this.write(this.queue.splice(0, this.writer.maxGroup)).finally(() => {
      this.writing = undefined;
      // The items that arrived meanwhile form the next group.
      this.startWrite();
    });
  }

  private async write(group: Pending<T>[]): Promise<void> {
    try {
      await this.writer.write(group.map((pending) => pending.item));
      for (const pending of group) pending.resolve();
    } catch (error) {
      this.log.error({ ...failureFields(error), [this.writer.unit]: group.length }, `could not record ${this.writer.unit}`);
      for (const pending of group) pending.reject(error);
    }
  }
}
