import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Redis } from 'ioredis';
import { isDatabaseReachable, type Db } from '../db/database.js';
import { ApiError } from '../errors.js';
import type { BlobStorage } from '../lib/blob-storage.js';
import { isRedisReachable } from '../lib/redis.js';

const Status = Type.Object({ status: Type.String() });

/**
 * Liveness (the process answers) and readiness for load balancers: the database answers, Redis
 * too when the process is configured with it, and the file storage (an object store's bucket,
 * within DEPENDENCY_TIMEOUT). Every /v1 request needs Redis then (rate limits fail closed), so
 * an instance that cannot reach it should not be sent traffic. Probes
 * for the infrastructure, not operations of the API: the OpenAPI document leaves them out.
 */
export function healthRoutes(db: Db, redis: Redis | undefined, blobs: BlobStorage, timeoutMs: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true, summary: 'Liveness', response: { 200: Status } } }, async () => ({
      status: 'ok',
    }));
    app.get(
      '/readyz',
      {
        schema: {
          hide: true,
          summary: 'Readiness: the database, Redis when configured, and the file storage are reachable',
          response: { 200: Status },
        },
      },
      async () => {
        const [database, cache, storage] = await Promise.all([
          isDatabaseReachable(db),
          redis ? isRedisReachable(redis) : true,
          blobs.check(AbortSignal.timeout(timeoutMs)).then(
            () => true,
            () => false,
          ),
        ]);
        const down = [...(database ? [] : ['the database']), ...(cache ? [] : ['Redis']), ...(storage ? [] : [blobs.label])];
        if (down.length > 0) {
          throw new ApiError('service_unavailable', `Not ready: ${down.join(' and ')} ${down.length > 1 ? 'are' : 'is'} not reachable`);
        }
        return { status: 'ready' };
      },
    );
  };
}
