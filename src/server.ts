import pino from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { migrateToLatest, openDatabase } from './db/database.js';
import { loggerOptions } from './http/logging.js';
import { systemClock } from './lib/clock.js';
import { closeRedis, openRedis } from './lib/redis.js';
import { startWorker } from './worker.js';

/** Stops cleanly on SIGTERM/SIGINT: no new connections, in-flight requests finish, then the database closes. */
function onShutdownSignal(stop: () => Promise<void>, log: pino.Logger): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

/** `tagsvc serve`: the HTTP API, public pages and (unless disabled) the worker in one process. */
export async function serve(config: Config, options: { worker: boolean }): Promise<void> {
  const database = await openDatabase(config);
  await migrateToLatest(database);
  // One Redis connection for the app and the worker alike.
  const redis = await openRedis(config);
  const app = await buildApp({ config, database, clock: systemClock, redis });
  await app.listen({ port: config.port, host: config.host });
  const stopWorker = options.worker ? await startWorker({ config, database, clock: systemClock, log: app.log }, redis) : undefined;
  onShutdownSignal(async () => {
    await app.close();
    await stopWorker?.();
    await closeRedis(redis);
    await database.close();
  }, app.log as pino.Logger);
}

/** `tagsvc worker`: only the background work, for deployments that scale it separately. */
export async function work(config: Config): Promise<void> {
  const log = pino(loggerOptions(config.logLevel));
  const database = await openDatabase(config);
  await migrateToLatest(database);
  const redis = await openRedis(config);
  const stopWorker = await startWorker({ config, database, clock: systemClock, log }, redis);
  onShutdownSignal(async () => {
    await stopWorker();
    await closeRedis(redis);
    await database.close();
  }, log);
}
