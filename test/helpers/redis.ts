import { describe } from 'vitest';

/**
 * The Redis server of the tests that need one: TEST_REDIS_URL (e.g. redis://127.0.0.1:6379,
 * which .ci/run sets). Unset, those tests are skipped and their titles say so, as the
 * PostgreSQL-only tests are skipped without TEST_DATABASE_URL.
 */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

/** Appended to the title of what is skipped for want of TEST_REDIS_URL. */
export const NEEDS_REDIS = TEST_REDIS_URL ? '' : ' [skipped: set TEST_REDIS_URL=redis://… to run]';

/** A describe block that runs only with TEST_REDIS_URL, given the URL. */
export function describeWithRedis(title: string, suite: (redisUrl: string) => void): void {
  describe.skipIf(!TEST_REDIS_URL)(`${title}${NEEDS_REDIS}`, () => suite(TEST_REDIS_URL ?? ''));
}

/** The same suite on each shared-state store: process memory, then Redis (only with TEST_REDIS_URL). */
export function describeStores(title: string, suite: (env: Record<string, string>) => void): void {
  describe(`${title} (memory)`, () => suite({}));
  describeWithRedis(`${title} (Redis)`, (redisUrl) => suite({ REDIS_URL: redisUrl }));
}
