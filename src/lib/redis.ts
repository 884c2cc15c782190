import { Redis } from 'ioredis';

/**
 * The process's one Redis connection when REDIS_URL is set (rate limits, real-time presence,
 * webhook caps): opened and closed by whoever opens the database (server.ts, the test helper),
 * and handed to the app and the worker. Commands fail at once while Redis is unreachable (no
 * offline queue, one retry), so the API answers 503 instead of hanging or silently admitting
 * everything.
 */
export async function openRedis(config: { redisUrl?: string }): Promise<Redis | undefined> {
  if (!config.redisUrl) return undefined;
  const redis = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true });
  redis.on('error', () => {
    // Reported per request as 503; ioredis keeps reconnecting in the background.
  });
  await redis.connect().catch(() => undefined);
  return redis;
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
