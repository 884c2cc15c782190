import { Redis } from 'ioredis';
import { fromRedis } from '../redis.js';
import { describeWindow, type Buckets, type RateDecision, type RateLimitStore, type WindowRule } from './window.js';

/**
 * Check-and-count in one Lua script: one round trip, atomic across every server process that
 * shares the Redis. Each window is a hash of bucket start → count. The script decides whether
 * every window has room, counts the request when it does, and returns the live buckets, from
 * which the same describeWindow() as the memory store derives the headers.
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local consume = ARGV[2] == '1'
local live = {}
local allowed = 1
for i = 1, #KEYS do
  local limit = tonumber(ARGV[3 * i])
  local window = tonumber(ARGV[3 * i + 1])
  local bucket = tonumber(ARGV[3 * i + 2])
  local data = redis.call('HGETALL', KEYS[i])
  local count = 0
  local kept = {}
  for j = 1, #data, 2 do
    local start = tonumber(data[j])
    if start + bucket > now - window then
      count = count + tonumber(data[j + 1])
      kept[#kept + 1] = data[j]
      kept[#kept + 1] = data[j + 1]
    else
      redis.call('HDEL', KEYS[i], data[j])
    end
  end
  live[i] = kept
  if count >= limit then allowed = 0 end
end
if allowed == 1 and consume then
  for i = 1, #KEYS do
    local window = tonumber(ARGV[3 * i + 1])
    local bucket = tonumber(ARGV[3 * i + 2])
    local start = string.format('%d', math.floor(now / bucket) * bucket)
    redis.call('HINCRBY', KEYS[i], start, 1)
    redis.call('PEXPIRE', KEYS[i], window + bucket)
    live[i] = redis.call('HGETALL', KEYS[i])
  end
end
return { allowed, live }
`;

const KEY_PREFIX = 'tagsvc:rl:';

export class RedisRateLimitStore implements RateLimitStore {
  readonly shared = true;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('tagsvcRateLimit', { lua: SCRIPT });
  }

  async check(rules: WindowRule[], nowMs: number, consume: boolean): Promise<RateDecision> {
    const args = [String(nowMs), consume ? '1' : '0', ...rules.flatMap((r) => [String(r.limit), String(r.windowMs), String(r.bucketMs)])];
    const run = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<[number, string[][]]>>).tagsvcRateLimit!;
    const [allowed, live] = await fromRedis(run.call(this.redis, rules.length, ...rules.map((r) => KEY_PREFIX + r.key), ...args));
    return {
      allowed: allowed === 1,
      windows: rules.map((rule, i) => {
        const buckets = sortedBuckets(live[i] ?? []);
        return describeWindow(
          rule,
          buckets,
          buckets.counts.reduce((sum, n) => sum + n, 0),
          nowMs,
        );
      }),
    };
  }

  /** The connection is the process's (see lib/redis.ts): its opener closes it. */
  async close(): Promise<void> {}
}

/** Redis hashes are unordered: the live buckets, sorted oldest first. */
function sortedBuckets(flat: string[]): Buckets {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([Number(flat[i]), Number(flat[i + 1])]);
  pairs.sort((a, b) => a[0] - b[0]);
  return { starts: pairs.map((p) => p[0]), counts: pairs.map((p) => p[1]) };
}
