import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { mayReadTagPage } from '../features/accounts/index.js';
import { isShownInline, pageFile } from '../features/files/index.js';
import { findTag } from '../features/tags/index.js';
import { sendDownload, sendInline } from '../http/downloads.js';
import { SHORT_ID_PATTERN } from '../lib/ids.js';

const SHORT_ID = new RegExp(SHORT_ID_PATTERN);

/**
 * The files of a tag's page (`/t/{short_id}/files/{id}`), to whoever may see the page: anyone
 * for a public tag, only its owner or organization signed in to the dashboard otherwise. The
 * tag is read on every request, so a tag made private stops serving its files at once.
 * Raster images are sent inline (image blocks); everything else is a download, counted as one.
 * Another tag's file, or an unreadable tag, is 404.
 */
export function publicFileRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const schema = { params: Type.Object({ shortId: Type.String(), fileId: Type.String() }), hide: true };
    app.get(
      '/t/:shortId/files/:fileId',
      { schema },
      async (request: FastifyRequest<{ Params: { shortId: string; fileId: string } }>, reply: FastifyReply) => {
        const { shortId, fileId } = request.params;
        const tag = SHORT_ID.test(shortId) ? await findTag(ctx, shortId) : undefined;
        const readable = tag !== undefined && (await mayReadTagPage(ctx, request.headers.cookie, tag));
        const file = readable ? await pageFile(ctx, tag, fileId) : undefined;
        if (!file) throw new ApiError('not_found', 'Not found');
        if (!isShownInline(file.mime_type)) return sendDownload(ctx, request, reply, file);
        // Short: a tag made private stops being served by caches soon after. A non-public
        // tag's images are one viewer's, never for a shared cache.
        return sendInline(ctx, request, reply, file, tag!.read_permission === 'public' ? 'public, max-age=300' : 'private, no-store');
      },
    );
  };
}
