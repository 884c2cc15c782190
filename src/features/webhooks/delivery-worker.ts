import type { ServiceContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import { failureFields } from '../../errors.js';
import type { DeliveriesTable } from '../../db/schema.js';
import type { WindowRule } from '../../lib/rate-limit/window.js';
import { onEventsCommitted } from '../events/index.js';
import * as repo from './webhooks.repository.js';
import { newDelivery, recordAttempt, sendAttempt } from './webhooks.service.js';

/** Bounds that keep one slow receiver from holding up the others (no head-of-line blocking). */
export const DELIVERY_LIMITS = {
  inFlight: 200,
  inFlightPerWebhook: 50,
  eventsPerDispatch: 500,
  claimBatch: 100,
  /**
   * The wait after a cycle that found nothing to do; each further empty cycle doubles it, up to
   * idlePollMaxMs. Events this process commits wake the worker at once, so the poll is only for
   * work from elsewhere: another process's events, retries coming due, leases running out.
   * Polling every 25 ms for good kept an idle server busy (src/perf/README.md).
   */
  idlePollMs: 25,
  idlePollMaxMs: 1000,
  /** After a send finishes, wait this long for others so claims come in batches, not one by one. */
  wakeCoalesceMs: 5,
} as const;

const LEASE_MARGIN_MS = 5000;

/**
 * Turns outbox events into deliveries and sends them. Runs in `tagsvc serve` (unless
 * --no-worker) and in `tagsvc worker`; any number of workers may share a PostgreSQL database.
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly inFlightPerWebhook = new Map<string, number>();
  private stopped = false;
  private loop: Promise<void> | undefined;
  /** Ends the current idle wait early; undefined while a cycle runs. */
  private wake: (() => void) | undefined;
  /** A wake that came while a cycle ran: the next wait is skipped, or that cycle's news could wait a whole poll. */
  private wakePending = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly ctx: ServiceContext) {}

  start(): void {
    this.unsubscribe ??= onEventsCommitted(() => this.wakeNow());
    this.loop ??= this.run();
  }

  /** Stops claiming, then waits for attempts in flight so none is left half-recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.wakeTimer);
    this.wakeNow();
    await this.loop;
    await Promise.all(this.inFlight.values());
  }

  private async run(): Promise<void> {
    let wait: number = DELIVERY_LIMITS.idlePollMs;
    while (!this.stopped) {
      try {
        const dispatched = await this.dispatchEvents();
        const started = await this.startDueDeliveries();
        if (dispatched > 0 || started > 0) {
          wait = DELIVERY_LIMITS.idlePollMs;
          continue;
        }
        const woken = await this.idle(wait);
        wait = woken ? DELIVERY_LIMITS.idlePollMs : Math.min(wait * 2, DELIVERY_LIMITS.idlePollMaxMs);
      } catch (error) {
        this.ctx.log.error(failureFields(error), 'delivery worker cycle failed');
        await this.idle(1000);
      }
    }
  }

  private wakeTimer: NodeJS.Timeout | undefined;

  private wakeSoon(): void {
    this.wakeTimer ??= setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakeNow();
    }, DELIVERY_LIMITS.wakeCoalesceMs);
  }

  private wakeNow(): void {
    if (this.wake) this.wake();
    else this.wakePending = true;
  }

  /** Waits `ms`, or less if woken; says whether it was woken. */
  private async idle(ms: number): Promise<boolean> {
    let woken = true;
    if (this.wakePending) this.wakePending = false;
    else {
      woken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        this.wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      this.wake = undefined;
    }
    this.ctx.log.trace({ wait_ms: ms, woken }, 'delivery worker idle');
    return woken;
  }

  /** One delivery per matching enabled webhook for each new event, written with the event marked. */
  private async dispatchEvents(): Promise<number> {
    const now = this.ctx.clock.now().toISOString();
    return transaction(this.ctx.db, async (trx) => {
      const events = await repo.claimUndispatchedEvents(trx, DELIVERY_LIMITS.eventsPerDispatch);
      if (events.length === 0) return 0;
      const subscribers = new Map<string, Awaited<ReturnType<typeof repo.subscribedWebhooks>>>();
      const deliveries: DeliveriesTable[] = [];
      for (const event of events) {
        const scope = `${event.environment}|${event.owner_id}|${event.organization_id ?? ''}`;
        let webhooks = subscribers.get(scope);
        if (!webhooks) {
          webhooks = await repo.subscribedWebhooks(trx, event);
          subscribers.set(scope, webhooks);
        }
        for (const webhook of webhooks) {
          if ((JSON.parse(webhook.events) as string[]).includes(event.type))
            deliveries.push(newDelivery(webhook.id, event, now, { test: false }));
        }
      }
      // Chunked: SQLite caps the number of bound parameters in one statement.
      for (let i = 0; i < deliveries.length; i += 200) await repo.insertDeliveries(trx, deliveries.slice(i, i + 200));
      await repo.markEventsDispatched(
        trx,
        events.map((e) => e.id),
        now,
      );
      return events.length;
    });
  }

  private async startDueDeliveries(): Promise<number> {
    const capacity = DELIVERY_LIMITS.inFlight - this.inFlight.size;
    if (capacity <= 0) return 0;
    const now = this.ctx.clock.now();
    const leaseUntil = new Date(now.getTime() + this.ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS).toISOString();
    const roomOf = (webhookId: string) => DELIVERY_LIMITS.inFlightPerWebhook - (this.inFlightPerWebhook.get(webhookId) ?? 0);
    const full = [...this.inFlightPerWebhook.keys()].filter((id) => roomOf(id) <= 0);
    const claimed = await repo.claimDueDeliveries(this.ctx.db, {
      now: now.toISOString(),
      leaseUntil,
      limit: Math.min(capacity, DELIVERY_LIMITS.claimBatch),
      full,
      roomOf,
    });
    for (const [i, delivery] of claimed.entries()) {
      let allowed: boolean;
      try {
        allowed = await this.withinMinuteCap(delivery, now.getTime());
      } catch (error) {
        // The cap's store (Redis) is unreachable: hand back every lease not yet used, so these
        // deliveries wait for a worker that can count them, not for their leases to run out.
        await repo.releaseLeases(
          this.ctx.db,
          claimed.slice(i).map((d) => d.id),
        );
        throw error;
      }
      if (allowed) this.send(delivery);
    }
    return claimed.length;
  }

  /** At most 1000 deliveries a minute per webhook; the excess waits, it is never dropped. */
  private async withinMinuteCap(delivery: repo.ClaimedDelivery, nowMs: number): Promise<boolean> {
    const rule: WindowRule = {
      key: `webhook:${delivery.webhook_id}`,
      limit: this.ctx.config.webhookDeliveriesPerMinute,
      windowMs: 60_000,
      bucketMs: 1000,
    };
    const decision = await this.ctx.limits.check([rule], nowMs, true);
    if (decision.allowed) return true;
    const later = new Date(nowMs + decision.windows[0]!.retryAfterMs).toISOString();
    await repo.updateDeliveryRow(this.ctx.db, delivery.id, { next_attempt_at: later, claimed_until: null });
    return false;
  }

  private send(claimed: repo.ClaimedDelivery): void {
    const { url, secret, headers, ...delivery } = claimed;
    this.inFlightPerWebhook.set(delivery.webhook_id, (this.inFlightPerWebhook.get(delivery.webhook_id) ?? 0) + 1);
    const attempt = sendAttempt(this.ctx, { url, secret, headers }, delivery)
      .then((result) => recordAttempt(this.ctx, delivery, result, true))
      .then(() => undefined)
      .catch((error: unknown) =>
        this.ctx.log.error({ ...failureFields(error), delivery_id: delivery.id }, 'could not record a delivery attempt'),
      )
      .finally(() => {
        this.inFlight.delete(delivery.id);
        const left = (this.inFlightPerWebhook.get(delivery.webhook_id) ?? 1) - 1;
        if (left > 0) this.inFlightPerWebhook.set(delivery.webhook_id, left);
        else this.inFlightPerWebhook.delete(delivery.webhook_id);
        this.wakeSoon();
      });
    this.inFlight.set(delivery.id, attempt);
  }
}
