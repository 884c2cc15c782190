import type { Redis } from 'ioredis';
import { MemoryRateLimitStore } from './memory-store.js';
import { RedisRateLimitStore } from './redis-store.js';
import type { RateLimitStore } from './window.js';

/** Redis when REDIS_URL is set (limits shared by every instance), else this process's memory. */
export function createRateLimitStore(redis: Redis | undefined): RateLimitStore {
  return redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore();
}
