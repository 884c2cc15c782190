import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { passwordPage } from '../features/pages/index.js';
import { checkPagePassword, PAGE_PASSWORD_LENGTH, UNLOCK_MAX_AGE_SECONDS, unlockCookieName, unlockToken } from '../features/tags/index.js';
import type { RateLimitStore, WindowRule } from '../lib/rate-limit/window.js';
import { FORM_PAGE, isRefusal, refuse, unlockPath, type PageGate } from './gate.js';

/** Password tries allowed per client address and page in a rolling minute; the next answers 429. */
export const UNLOCK_TRIES_PER_MINUTE = 10;

const unlockRule = (address: string, tagId: string): WindowRule => ({
  key: `unlock:${tagId}:${address}`,
  limit: UNLOCK_TRIES_PER_MINUTE,
  windowMs: 60_000,
  bucketMs: 1000,
});

/**
 * The password form of a protected page posts here (`/t/{short_id}/unlock`). The right
 * password sets an HttpOnly cookie that unlocks this page only, and sends the visitor back to
 * the page, where the view is counted; a wrong one shows the form again, saying so. Every try
 * counts against the limit, right or wrong, so the limit cannot be probed for free.
 */
export function unlockRoutes(ctx: ServiceContext, gate: PageGate, limits: RateLimitStore): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(formbody, { bodyLimit: 4096 });
    app.post(
      '/t/:shortId/unlock',
      {
        schema: {
          params: Type.Object({ shortId: Type.String() }),
          body: Type.Object({ password: Type.Optional(Type.String()), via: Type.Optional(Type.String()) }),
          hide: true,
        },
      },
      async (request, reply) => {
        const admitted = await gate.admit(request, request.params.shortId, 'unlock');
        if (isRefusal(admitted)) return refuse(request, reply, admitted.kind === 'moved' ? { kind: 'missing' } : admitted);
        const tag = admitted;
        const via = request.body.via === 'scan' ? 'scan' : 'page';
        const form = (code: number, problem: string) =>
          reply
            .code(code)
            .headers(FORM_PAGE)
            .send(passwordPage({ action: unlockPath(tag.short_id), via, problem }));

        const decision = await limits.check([unlockRule(request.ip, tag.id)], ctx.clock.now().getTime(), true);
        if (!decision.allowed) {
          const seconds = Math.max(1, Math.ceil(Math.max(...decision.windows.map((w) => w.retryAfterMs)) / 1000));
          reply.header('retry-after', String(seconds));
          return form(429, `Too many tries. Wait ${seconds} seconds, then try again.`);
        }
        const password = request.body.password ?? '';
        const right = password.length <= PAGE_PASSWORD_LENGTH.max * 4 && (await checkPagePassword(tag, password));
        if (!right) return form(401, 'That password is not right. Try again.');
        const secure = ctx.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
        reply.header(
          'set-cookie',
          `${unlockCookieName(tag)}=${unlockToken(ctx, tag)}; Path=/; Max-Age=${UNLOCK_MAX_AGE_SECONDS}; SameSite=Lax; HttpOnly${secure}`,
        );
        return reply
          .header('cache-control', 'no-store')
          .redirect(`/${via === 'scan' ? 's' : 't'}/${encodeURIComponent(tag.short_id)}`, 303);
      },
    );
  };
}
