import type { Config } from '../../config.js';
import { MemoryRateLimitStore } from './memory-store.js';
import { connectRedis } from '../../lib/redis.js';
import { RedisRateLimitStore } from './redis-store.js';
import type { RateLimitStore } from './window.js';

/** Redis when REDIS_URL is set (limits shared by every instance), else this process's memory. */
export async function createRateLimitStore(config: Pick<Config, 'redisUrl'>): Promise<RateLimitStore> {
  return config.redisUrl ? new RedisRateLimitStore(await connectRedis(config.redisUrl)) : new MemoryRateLimitStore();
}
