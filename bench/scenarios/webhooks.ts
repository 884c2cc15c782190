import { performance } from 'node:perf_hooks';
import { api } from '../lib/api.js';
import { latencyMetrics, percentile, type Metric } from '../lib/metrics.js';
import { progress } from '../lib/measure.js';
import { Receiver, type Arrival } from '../lib/receiver.js';
import type { MetricsScenario, ScenarioContext } from '../lib/scenario.js';

const HOOKS = ['a', 'b'];
/**
 * No new delivery for this long means the worker is stuck: even with the per-webhook minute cap
 * in force (the webhooks variant lifts it), room frees up every second.
 */
const STALL_MS = 90_000;
/** After the last expected delivery, a duplicate still has this long to show up. */
const GRACE_MS = 1000;

/** An Enterprise account with one webhook per HOOKS entry, each subscribed to tag.created. */
async function subscribe(context: ScenarioContext, receiver: Receiver): Promise<string> {
  const account = await context.createAccount('enterprise');
  for (const hook of HOOKS) {
    await api(context.baseUrl, account.key, 'POST', '/v1/webhooks', {
      body: { name: `bench ${hook}`, url: receiver.url(hook), events: ['tag.created'] },
    });
  }
  return account.key;
}

/** Waits until `expected` distinct (webhook, event) deliveries are in, then a little longer. */
async function settle(receiver: Receiver, expected: number): Promise<void> {
  let seen = 0;
  let progressAt = Date.now();
  let changedAt = Date.now();
  while (distinct(receiver.arrivals) < expected) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = Date.now();
    if (receiver.arrivals.length !== seen) {
      seen = receiver.arrivals.length;
      changedAt = now;
    }
    if (now - changedAt > STALL_MS)
      throw new Error(`no delivery for ${STALL_MS / 1000} s; ${distinct(receiver.arrivals)} of ${expected} arrived`);
    if (now - progressAt > 10_000) {
      progressAt = now;
      progress(`  ${seen.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} deliveries`);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
}

function distinct(arrivals: Arrival[]): number {
  return new Set(arrivals.map((a) => `${a.hook}|${a.eventId}`)).size;
}

/**
 * Every event must reach every webhook exactly once: a missing delivery is lost, a second one
 * is a duplicate send (delivery is at least once, but in normal operation never twice).
 */
function exactlyOnce(arrivals: Arrival[], events: number): Metric[] {
  const perEvent = new Map<string, string[]>();
  for (const a of arrivals) perEvent.set(a.eventId, [...(perEvent.get(a.eventId) ?? []), a.hook]);
  const unique = distinct(arrivals);
  const incomplete = [...perEvent.values()].filter((hooks) => new Set(hooks).size !== HOOKS.length).length;
  return [
    { label: 'deliveries received', value: arrivals.length, unit: '', target: { op: '==', value: events * HOOKS.length } },
    { label: 'duplicate deliveries', value: arrivals.length - unique, unit: '', target: { op: '==', value: 0 } },
    {
      label: 'events not at every webhook',
      value: incomplete + Math.max(0, events - perEvent.size),
      unit: '',
      target: { op: '==', value: 0 },
    },
  ];
}

const latencies = (arrivals: Arrival[]) => arrivals.map((a) => a.at - a.createdAt);

/**
 * The first few (webhook, event) pairs that arrived more than once, for the report: when each
 * copy came (seconds after the first delivery of the run) and the attempt timestamp it carried.
 */
function duplicates(sorted: Arrival[]): Array<Record<string, unknown>> {
  const byPair = new Map<string, Arrival[]>();
  for (const a of sorted) byPair.set(`${a.hook}|${a.eventId}`, [...(byPair.get(`${a.hook}|${a.eventId}`) ?? []), a]);
  const start = sorted[0]?.at ?? 0;
  return [...byPair.values()]
    .filter((copies) => copies.length > 1)
    .slice(0, 20)
    .map((copies) => ({
      hook: copies[0]!.hook,
      event: copies[0]!.eventId,
      arrivedAtSeconds: copies.map((c) => Number(((c.at - start) / 1000).toFixed(3))),
      attemptTimestamps: copies.map((c) => c.attemptAt),
    }));
}

/**
 * The deliveries before the first pause of 5 s or more: the worker's own pace. With the cap of
 * 1,000 deliveries a minute per webhook in force (WEBHOOK_DELIVERIES_PER_MINUTE, which the
 * webhooks variant lifts), the cap holds the rest back and this is all that tells.
 */
function firstBurst(sorted: Arrival[]): Arrival[] {
  let end = 1;
  while (end < sorted.length && sorted[end]!.at - sorted[end - 1]!.at < 5000) end++;
  return sorted.slice(0, end);
}

/** Deliveries per second between the first and the last of `arrivals` (sorted by time). */
function rate(sorted: Arrival[]): number {
  return sorted.length < 2 ? Number.NaN : (sorted.length - 1) / ((sorted.at(-1)!.at - sorted[0]!.at) / 1000);
}

export const webhooksIdle: MetricsScenario = {
  kind: 'metrics',
  name: 'webhooks-idle',
  description: 'tag.created to 2 webhooks, one tag every ~20 ms with the queue empty: event-to-delivery latency',
  variant: 'webhooks',
  async run(context) {
    const receiver = await Receiver.start(context.run.workDir);
    try {
      const key = await subscribe(context, receiver);
      const tags = 200;
      progress(`  creating ${tags} tags one at a time`);
      for (let i = 0; i < tags; i++) {
        await api(context.baseUrl, key, 'POST', '/v1/tags', {
          body: { title: `Idle latency ${i}`, content: [{ type: 'text', content: 'One tag at a time.' }] },
        });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await settle(receiver, tags * HOOKS.length);
      const arrivals = receiver.arrivals;
      return {
        metrics: [...latencyMetrics('event-to-delivery', latencies(arrivals), { p50: 100 }), ...exactlyOnce(arrivals, tags)],
        details: {
          tags,
          webhooks: HOOKS.length,
          maxLatencyMs: Math.max(...latencies(arrivals)),
          duplicates: duplicates([...arrivals].sort((a, b) => a.at - b.at)),
        },
      };
    } finally {
      await receiver.close();
    }
  },
};

export const webhooksFanout: MetricsScenario = {
  kind: 'metrics',
  name: 'webhooks-fanout',
  description: 'tag.created events from POST /v1/tags/batch (100 per call) fanned out to 2 webhooks: deliveries/s, latency',
  variant: 'webhooks',
  async run(context) {
    const events = context.run.settings.webhookEvents;
    const receiver = await Receiver.start(context.run.workDir);
    try {
      const key = await subscribe(context, receiver);
      progress(`  creating ${events.toLocaleString('en-US')} tags, 100 per call, 4 calls at a time`);
      const started = performance.now();
      let nextBatch = 0;
      const batches = Math.ceil(events / 100);
      // A few calls in flight, as an importing client would; the database serialises the writes.
      const caller = async () => {
        for (let b = nextBatch++; b < batches; b = nextBatch++) {
          const size = Math.min(100, events - b * 100);
          const body = {
            tags: Array.from({ length: size }, (_, i) => ({
              title: `Fan-out ${b * 100 + i}`,
              content: [{ type: 'text', content: 'Made by the webhooks bench.' }],
            })),
          };
          await api(context.baseUrl, key, 'POST', '/v1/tags/batch', { body, timeoutMs: 120_000 });
        }
      };
      await Promise.all(Array.from({ length: 4 }, caller));
      const createSeconds = (performance.now() - started) / 1000;
      progress(`  created in ${createSeconds.toFixed(1)} s; waiting for ${(events * HOOKS.length).toLocaleString('en-US')} deliveries`);
      await settle(receiver, events * HOOKS.length);
      const sorted = [...receiver.arrivals].sort((a, b) => a.at - b.at);
      const burst = firstBurst(sorted);
      return {
        metrics: [
          { label: 'deliveries, first to last', value: rate(sorted), unit: '/s', digits: 0, target: { op: '>=', value: 1000 } },
          { label: `first burst (${burst.length.toLocaleString('en-US')} deliveries)`, value: rate(burst), unit: '/s', digits: 0 },
          ...latencyMetrics('event-to-delivery', latencies(sorted)),
          ...exactlyOnce(sorted, events),
        ],
        details: {
          events,
          webhooks: HOOKS.length,
          tagsPerSecond: events / createSeconds,
          deliverySpanSeconds: (sorted.at(-1)!.at - sorted[0]!.at) / 1000,
          firstDeliveryAfterStartSeconds: (sorted[0]!.at - (performance.timeOrigin + started)) / 1000,
          latencyMaxMs: percentile(latencies(sorted), 100),
          duplicates: duplicates(sorted),
        },
      };
    } finally {
      await receiver.close();
    }
  },
};
