import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { isDatabaseReachable, type Db } from '../../db/database.js';
import { ApiError } from '../../errors.js';

const Status = Type.Object({ status: Type.String() });

/** Liveness (the process answers) and readiness (the database answers) for load balancers. */
export function healthRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/healthz', { schema: { summary: 'Liveness', tags: ['Operations'], response: { 200: Status } } }, async () => ({
      status: 'ok',
    }));
    app.get(
      '/readyz',
      { schema: { summary: 'Readiness: the database is reachable', tags: ['Operations'], response: { 200: Status } } },
      async () => {
        if (!(await isDatabaseReachable(db))) throw new ApiError('service_unavailable', 'Database is not reachable');
        return { status: 'ready' };
      },
    );
  };
}
