import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { isShownInline, pageFile } from '../features/files/index.js';
import { sendDownload, sendInline } from '../http/downloads.js';
import { isRefusal, refuse, type PageGate } from './gate.js';

/**
 * The files of a tag's page (`/t/{short_id}/files/{id}`), to whoever may see the page: anyone
 * for a public tag, only its owner or organization signed in to the dashboard otherwise. The
 * tag is read on every request, so a tag made private stops serving its files at once.
 * Raster images are sent inline (image blocks); everything else is a download, counted as one.
 * Another tag's file, or an unreadable tag, is 404. The page's gate holds for its files too: a
 * draft's are missing, an expired page's gone, a locked page's behind its password.
 */
export function publicFileRoutes(ctx: ServiceContext, gate: PageGate): FastifyPluginAsyncTypebox {
  return async (app) => {
    const schema = { params: Type.Object({ shortId: Type.String(), fileId: Type.String() }), hide: true };
    app.get(
      '/t/:shortId/files/:fileId',
      { schema },
      async (request: FastifyRequest<{ Params: { shortId: string; fileId: string } }>, reply: FastifyReply) => {
        const { shortId, fileId } = request.params;
        const admitted = await gate.admit(request, shortId, 'page');
        if (isRefusal(admitted) && admitted.kind !== 'missing') return refuse(request, reply, admitted);
        const tag = isRefusal(admitted) ? undefined : admitted;
        const file = tag ? await pageFile(ctx, tag, fileId) : undefined;
        if (!file) throw new ApiError('not_found', 'Not found');
        if (!isShownInline(file.mime_type)) return sendDownload(ctx, request, reply, file);
        // Short: a tag made private stops being served by caches soon after. A non-public or
        // gated tag's images are one viewer's, never for a shared cache.
        const shared =
          tag!.read_permission === 'public' && tag!.password_hash === null && tag!.expires_at === null && tag!.max_views === null;
        return sendInline(ctx, request, reply, file, shared ? 'public, max-age=300' : 'private, no-store');
      },
    );
  };
}
