import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../errors.js';
import { accentStylesheetAt } from '../features/pages/index.js';
import { CACHED_FOR_GOOD } from '../http/hashed-names.js';

/**
 * GET /assets/accent/{rrggbb}.{hash}.css: the custom properties of a page's accent colour. The
 * page's CSP allows styles from this origin only, never inline ones, so an owner's colour is a
 * stylesheet of its own. Its address names its content, so it is cached for a year; any other
 * address (a colour not written in lower-case hex, a stale hash) is 404.
 */
export const accentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/assets/accent/:file', { schema: { params: Type.Object({ file: Type.String() }), hide: true } }, async (request, reply) => {
    const css = accentStylesheetAt(request.params.file);
    if (css === undefined) throw new ApiError('not_found', 'Not found');
    return reply
      .type('text/css; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', CACHED_FOR_GOOD)
      .send(css);
  });
};
