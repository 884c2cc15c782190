import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The durable queues' depths, read from the database when Prometheus scrapes. */
export interface QueueDepths {
  /** Outbox events not yet turned into deliveries. */
  webhookEvents: number;
  /** Deliveries waiting for their first attempt or a retry. */
  webhookDeliveries: number;
  /** Recorded views not yet added to the rollups. */
  viewsRollup: number;
}

/** How a delivery attempt ended: delivered, failed with a retry scheduled, or failed for good. */
export type DeliveryOutcome = 'success' | 'retry' | 'failed';

/**
 * One process's Prometheus metrics, in a registry of its own (several apps share a test process).
 * Made only when METRICS_TOKEN is set: without it nothing is counted or hooked, so requests pay
 * nothing for metrics nobody reads. Counters are this process's; the queue depths are the
 * database's, the same whichever process is scraped.
 */
export class Metrics {
  readonly registry = new Registry();

  /** Its `_count` series is the request counter: one observe per request feeds both. */
  readonly requestDuration = new Histogram({
    name: 'tagsvc_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status code, and the time each took to answer',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly viewsRecorded = new Counter({
    name: 'tagsvc_views_recorded_total',
    help: 'Page views committed to the database by this process',
    registers: [this.registry],
  });

  readonly linkClicksRecorded = new Counter({
    name: 'tagsvc_link_clicks_recorded_total',
    help: 'Link clicks committed to the database by this process',
    registers: [this.registry],
  });

  readonly deliveryAttempts = new Counter({
    name: 'tagsvc_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome (success, retry, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(readQueueDepths: () => Promise<QueueDepths>) {
    // Process CPU, memory, handles, GC and event-loop lag (nodejs_eventloop_lag_seconds).
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'tagsvc_queue_depth',
      help: 'Items waiting in a durable queue (the database, shared by every process)',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      // Read at scrape time, never per request.
      async collect() {
        const depths = await readQueueDepths();
        this.set({ queue: 'webhook_events' }, depths.webhookEvents);
        this.set({ queue: 'webhook_deliveries' }, depths.webhookDeliveries);
        this.set({ queue: 'views_rollup' }, depths.viewsRollup);
      },
    });
  }
}
