import { Redis } from 'ioredis';

/**
 * Commands fail at once while Redis is unreachable (no offline queue, one retry), so the API
 * answers 503 instead of hanging or silently admitting everything.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true });
  redis.on('error', () => {
    // Reported per request as 503; ioredis keeps reconnecting in the background.
  });
  await redis.connect().catch(() => undefined);
  return redis;
}
