import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Environment } from './db/schema.js';
import type { BlobStorage } from './lib/blob-storage.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './lib/metrics.js';
import type { OutboundAgents } from './lib/outbound.js';
import type { PresenceStore } from './lib/presence.js';
import type { RateLimitStore } from './lib/rate-limit/window.js';

/**
 * What every service operation `(ctx, actor, input)` works with: built once per process by
 * createServices (services.ts) and shared by the API, the dashboard, the worker and the CLI.
 */
export interface ServiceContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Where file contents live (local disk today; one place to add another backend). */
  blobs: BlobStorage;
  /** Outbound HTTP(S) through the SSRF guard: webhook deliveries and files/from-url. */
  agents: OutboundAgents;
  /** Rate-limit counters: memory, or Redis shared by every instance. */
  limits: RateLimitStore;
  /** Real-time viewers: memory, or Redis shared by every instance. */
  presence: PresenceStore;
  /**
   * Requests of known bots to public pages, counted in this process's memory and added to the
   * rollups every few seconds (features/analytics/bot-views.ts); `flush` before a report reads.
   */
  botViews: { count(tagId: string): void; flush(): Promise<void> };
  /** Prometheus metrics; absent unless METRICS_TOKEN is set, and then nothing is counted. */
  metrics: Metrics | undefined;
  /** What other features keep per tag (see TagDependent). */
  tagDependents: readonly TagDependent[];
}

/** A tag as the features that hang data off it see it. */
export interface DependentTag {
  id: string;
  environment: Environment;
  owner_id: string;
  organization_id: string | null;
}

/**
 * Files and analytics keep data per tag but sit above tags in the feature order (they look tags
 * up), so tags cannot import them. They hand tags what it must do on their behalf instead, once,
 * in createServices: this is the one place a feature reaches a feature above it.
 */
export interface TagDependent {
  /** Refuses blocks that reference this feature's data wrongly (400 naming `field[i]…`). */
  checkBlocks?(
    ctx: ServiceContext,
    tagId: string | null,
    blocks: readonly { type: string; file_id?: string }[],
    field: string,
  ): Promise<void>;
  /**
   * Deletes, before the transaction that deletes the tag, what of its data may go early, in
   * short transactions of its own: the tag and everything its readers count stay until that
   * transaction, which takes the rest.
   */
  deleteBeforeTag?(ctx: ServiceContext, tag: DependentTag): Promise<void>;
  /** Deletes the tag's data inside the transaction that deletes the tag, before its row goes. */
  deleteWithTag(ctx: ServiceContext, trx: Db, tag: DependentTag): Promise<void>;
}
