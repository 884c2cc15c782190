import { Redis } from 'ioredis';
import { DependencyUnavailable, failureReason } from '../errors.js';

interface ConnectionLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * The process's one Redis connection when REDIS_URL is set (rate limits, real-time presence,
 * webhook caps): opened and closed by whoever opens the database (server.ts, the test helper),
 * and handed to the app and the worker. Commands fail at once while Redis is unreachable (no
 * offline queue, one retry), and a command unanswered for `dependencyTimeoutMs` (a frozen
 * server) fails then, so the API answers 503 instead of hanging or silently admitting
 * everything. ioredis reconnects in the background, at most 2 s apart.
 *
 * The loss and the return of the connection are logged once each, not every failed reconnection.
 */
export async function openRedis(
  config: { redisUrl?: string; dependencyTimeoutMs: number },
  log: ConnectionLog,
): Promise<Redis | undefined> {
  if (!config.redisUrl) return undefined;
  const redis = new Redis(config.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: config.dependencyTimeoutMs,
    commandTimeout: config.dependencyTimeoutMs,
    lazyConnect: true,
  });
  let down = false;
  redis.on('error', (error) => {
    if (down) return;
    down = true;
    log.warn({ dependency: 'redis', reason: failureReason(error) }, 'redis connection lost');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ dependency: 'redis' }, 'redis connection restored');
  });
  await redis.connect().catch(() => undefined);
  return redis;
}

/** A Redis command's answer; its failure (down, frozen) as DependencyUnavailable (503). */
export function fromRedis<T>(command: Promise<T>): Promise<T> {
  return command.catch((error: unknown) => {
    throw new DependencyUnavailable('redis', failureReason(error));
  });
}

export async function closeRedis(redis: Redis | undefined): Promise<void> {
  await redis?.quit().catch(() => redis.disconnect());
}

/** Whether Redis answers a PING within `timeoutMs` (readiness probes). */
export async function isRedisReachable(redis: Redis, timeoutMs = 1000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([
      redis.ping().then(
        (answer) => answer === 'PONG',
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
