import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { passwordPage } from '../features/pages/index.js';
import { checkPagePassword, PAGE_PASSWORD_LENGTH, UNLOCK_MAX_AGE_SECONDS, unlockCookieName, unlockToken } from '../features/tags/index.js';
import type { RateLimitStore, WindowRule } from '../lib/rate-limit/window.js';
import { FORM_PAGE, isRefusal, refuse, unlockPath, type PageGate } from './gate.js';

/** Password tries allowed per client address and page in a rolling minute; the next answers 429. */
export const UNLOCK_TRIES_PER_MINUTE = 10;

const unlockRule = (address: string, lockedId: string): WindowRule => ({
  key: `unlock:${lockedId}:${address}`,
  limit: UNLOCK_TRIES_PER_MINUTE,
  windowMs: 60_000,
  bucketMs: 1000,
});

/** One try at a password form: a tag's page, or a shared report (stats.ts). */
export interface PasswordTry {
  /** What the password unlocks: its id keys the limit and names the cookie. */
  locked: { id: string; password_hash: string | null };
  password: string | undefined;
  /** The form again, saying what went wrong with this try. */
  form: (problem: string) => string;
  /** The addresses the cookie is sent to. */
  cookiePath: string;
  /** Where the unlocked page is. */
  back: string;
}

/**
 * Answers a try at a password form. The right password sets an HttpOnly cookie that unlocks
 * this page only, and sends the visitor back to the page; a wrong one shows the form again,
 * saying so. Every try counts against the limit, right or wrong, so the limit cannot be probed
 * for free.
 */
export async function answerPasswordTry(
  ctx: ServiceContext,
  limits: RateLimitStore,
  request: FastifyRequest,
  reply: FastifyReply,
  { locked, password = '', form, cookiePath, back }: PasswordTry,
): Promise<FastifyReply> {
  const answer = (code: number, problem: string) => reply.code(code).headers(FORM_PAGE).send(form(problem));
  const decision = await limits.check([unlockRule(request.ip, locked.id)], ctx.clock.now().getTime(), true);
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(Math.max(...decision.windows.map((w) => w.retryAfterMs)) / 1000));
    reply.header('retry-after', String(seconds));
    return answer(429, `Too many tries. Wait ${seconds} seconds, then try again.`);
  }
  const right = password.length <= PAGE_PASSWORD_LENGTH.max * 4 && (await checkPagePassword(locked, password));
  if (!right) return answer(401, 'That password is not right. Try again.');
  const secure = ctx.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${unlockCookieName(locked)}=${unlockToken(ctx, locked)}; Path=${cookiePath}; Max-Age=${UNLOCK_MAX_AGE_SECONDS}; SameSite=Lax; HttpOnly${secure}`,
  );
  return reply.header('cache-control', 'no-store').redirect(back, 303);
}

/**
 * The password form of a protected page posts here (`/t/{short_id}/unlock`); the page the
 * right password leads back to counts the view.
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
        return answerPasswordTry(ctx, limits, request, reply, {
          locked: tag,
          password: request.body.password,
          form: (problem) => passwordPage({ action: unlockPath(tag.short_id), via, problem }),
          cookiePath: '/',
          back: `/${via === 'scan' ? 's' : 't'}/${encodeURIComponent(tag.short_id)}`,
        });
      },
    );
  };
}
