import pino from 'pino';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { ServiceContext } from './context.js';
import { migrateToLatest, openDatabase, type DatabaseHandle, type Db } from './db/database.js';
import { failureReason } from './errors.js';
import { analyticsTagDependent, BotViews, pendingViewCount } from './features/analytics/index.js';
import { filesTagDependent } from './features/files/index.js';
import { sharesTagDependent } from './features/shares/index.js';
import { sealPlaintextWebhookSecrets, webhookQueueDepths } from './features/webhooks/index.js';
import { loggerOptions } from './http/logging.js';
import { createBlobStorage } from './lib/blob-stores.js';
import { systemClock, type Clock } from './lib/clock.js';
import { Metrics, type QueueDepths } from './lib/metrics.js';
import { createOutboundAgents } from './lib/outbound.js';
import { createPresenceStore } from './lib/presence.js';
import { createRateLimitStore } from './lib/rate-limit/store.js';
import { closeRedis, openRedis } from './lib/redis.js';

/** The context of one process, with what opened it: `close` releases everything in turn. */
export interface Services extends ServiceContext {
  database: DatabaseHandle;
  /** REDIS_URL's connection, shared by the rate limits, presence and the webhook cap. */
  redis: Redis | undefined;
  close(): Promise<void>;
}

/**
 * Builds the one context a process runs on (`serve`, `worker` and every CLI command): opens the
 * database and brings its schema and stored secrets up to date, opens Redis when configured,
 * and makes the blob storage, the outbound agents, the rate-limit store and the presence store
 * once. `command` marks a CLI command: it ends in a moment, so it leaves background upkeep to
 * the processes that run on.
 */
export async function createServices(
  config: Config,
  options: { clock?: Clock; log?: pino.Logger; command?: boolean } = {},
): Promise<Services> {
  const log = options.log ?? pino(loggerOptions(config.logLevel));
  // One line a failure, with its cause (a full disk): the thread is started again, at most once a minute.
  const checkpointThread = {
    onFailure: (error: Error) =>
      log.warn({ reason: failureReason(error) }, 'SQLite checkpoint thread failed: the connection checkpoints until it runs again'),
  };
  const onConnectionLost = (reason: string) => log.warn({ dependency: 'database', reason }, 'database connection lost');
  const database = await openDatabase(config, options.command ? { onConnectionLost } : { checkpointThread, onConnectionLost });
  try {
    await migrateToLatest(database);
    // Webhook secrets an earlier version stored in clear are sealed before anything reads them.
    await sealPlaintextWebhookSecrets({ db: database.db, config });
  } catch (error) {
    await database.close();
    throw error;
  }
  // Processes that answer requests bound every wait on the database; a command waits as long as
  // its work takes (a migration, a copy).
  if (!options.command) database.limitQueryTime(config.dependencyTimeoutMs);
  const blobs = await createBlobStorage(config);
  // A server that cannot keep files says so at start, naming the setting, not at its first upload.
  if (!options.command) {
    try {
      await blobs.check(AbortSignal.timeout(config.dependencyTimeoutMs));
    } catch (error) {
      blobs.close();
      await database.close();
      throw error;
    }
  }
  const redis = await openRedis(config, log);
  const agents = createOutboundAgents(config);
  const limits = createRateLimitStore(redis);
  const presence = createPresenceStore(redis);
  const clock = options.clock ?? systemClock;
  const botViews = new BotViews(database.db, clock, log);
  return {
    config,
    db: database.db,
    clock,
    log,
    blobs,
    agents,
    limits,
    presence,
    botViews,
    metrics: config.metricsToken === undefined ? undefined : new Metrics(() => readQueueDepths(database.db)),
    tagDependents: [filesTagDependent, analyticsTagDependent, sharesTagDependent],
    database,
    redis,
    async close() {
      agents.http.destroy();
      agents.https.destroy();
      await limits.close();
      await presence.close();
      // The bot requests the server answered before it stopped (its requests are drained by now).
      await botViews.flush();
      await closeRedis(redis);
      blobs.close();
      await database.close();
    },
  };
}

async function readQueueDepths(db: Db): Promise<QueueDepths> {
  const [webhooks, viewsRollup] = await Promise.all([webhookQueueDepths(db), pendingViewCount(db)]);
  return { webhookEvents: webhooks.events, webhookDeliveries: webhooks.deliveries, viewsRollup };
}
