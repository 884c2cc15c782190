import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { lockViewRollup } from '../../db/locks.js';
import { transaction } from '../../db/transaction.js';
import { failureReason } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { getOrCreate } from '../../lib/maps.js';
import { addBotViews, type BotCount } from './bot-views.repository.js';
import { hourOf } from './period.js';

/** How long bot requests wait in memory before they are added to the rollups. */
export const BOT_FLUSH_MS = 5000;

const HOUR_MS = 3_600_000;

/**
 * Requests to public pages from known bots (visitor.ts isBot): counted, not stored one by one. A
 * bot request costs a count in a map, per tag and hour; the counts are added to the rollups'
 * bot_views in one transaction BOT_FLUSH_MS after the first of them, before every report (which
 * so counts every bot request answered before it started, as it does views) and when the
 * process stops. A flush that fails (a full disk) keeps its counts for the next one: bot counts
 * are approximate only by what a crash loses, a few seconds' worth.
 *
 * The counts are this process's: with several web processes, a report flushes its own and sees
 * the others' within BOT_FLUSH_MS.
 */
export class BotViews {
  /** Requests by the hour's start (epoch ms), then by tag id: no string is built per request. */
  private counts = new Map<number, Map<string, number>>();
  private timer: NodeJS.Timeout | undefined;
  /** The flush in progress: a report waits for it too, its counts are no longer in the map. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** A request of a bot for the tag's page. */
  count(tagId: string): void {
    const nowMs = this.clock.now().getTime();
    this.add(nowMs - (nowMs % HOUR_MS), tagId, 1);
  }

  private add(hourMs: number, tagId: string, requests: number): void {
    const ofHour = getOrCreate(this.counts, hourMs, () => new Map<string, number>());
    ofHour.set(tagId, (ofHour.get(tagId) ?? 0) + requests);
    this.timer ??= setTimeout(() => void this.flush(), BOT_FLUSH_MS).unref();
  }

  /** Adds every request counted so far to the rollups: resolves once they are committed, or kept after a failure. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size > 0) {
      const taken = this.counts;
      this.counts = new Map();
      this.writing = this.writing.then(() => this.write(taken));
    }
    return this.writing;
  }

  private async write(taken: Map<number, Map<string, number>>): Promise<void> {
    const counts: BotCount[] = [];
    for (const [hourMs, ofHour] of taken) {
      const hour = hourOf(new Date(hourMs).toISOString());
      for (const [tagId, requests] of ofHour) counts.push({ tagId, hour, requests });
    }
    try {
      await transaction(this.db, async (trx) => {
        await lockViewRollup(trx);
        await addBotViews(trx, counts);
      });
    } catch (error) {
      this.log.warn({ reason: failureReason(error), tag_hours: counts.length }, 'bot requests not stored yet: kept for the next flush');
      for (const [hourMs, ofHour] of taken) for (const [tagId, requests] of ofHour) this.add(hourMs, tagId, requests);
    }
  }
}
