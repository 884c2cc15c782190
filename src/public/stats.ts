import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { passwordPage } from '../features/pages/index.js';
import {
  openShare,
  sharedReport,
  SHARED_PERIODS,
  statsPath,
  type SharedPeriod,
  type SharedPeriodChoice,
} from '../features/shares/index.js';
import { isUnlocked } from '../features/tags/index.js';
import type { RateLimitStore } from '../lib/rate-limit/window.js';
import { FORM_PAGE, refuse } from './gate.js';
import { renderStatsPage } from './stats-page.js';
import { answerPasswordTry } from './unlock.js';

/** The stats page's stylesheet, on top of the pages' own (page.css). */
const STATS_CSS = readFileSync(new URL('stats.css', import.meta.url), 'utf8');

/** A shared report is for the people it was given to: kept out of search engines, never cached on the way. */
const STATS_PAGE = { ...FORM_PAGE, 'x-robots-tag': 'noindex' };

const Params = Type.Object({ token: Type.String() });

/** What the visitor asked for: a preset (the default is 30 days), or dates as the form sends them. */
function choiceOf(query: { period?: string; from?: string; to?: string }): SharedPeriodChoice {
  if (query.from !== undefined || query.to !== undefined) return { from: query.from ?? '', to: query.to ?? '' };
  return { period: SHARED_PERIODS.includes(query.period as SharedPeriod) ? (query.period as SharedPeriod) : '30d' };
}

/** A refused period, in the visitor's words: which date, or why the two do not make a period. */
function problemOf(error: unknown): string {
  if (!(error instanceof ApiError) || error.status !== 400) throw error;
  if (error.details.field === 'start_date') return 'Enter the first day as a date, e.g. 2026-11-01.';
  if (error.details.field === 'end_date') return 'Enter the last day as a date, e.g. 2026-11-30.';
  return 'Choose a last day on or after the first day, within the history this report keeps.';
}

/**
 * /stats/{token}: a tag's report its owner shared (features/shares), to anyone with the
 * address, no sign-in. An unknown, revoked or expired token, like a deleted tag, gets the page
 * a missing tag gets. A share with a password asks for it first, as a protected page does
 * (unlock.ts: the same form, limit and cookie, which unlocks this share only).
 */
export function statsRoutes(ctx: ServiceContext, limits: RateLimitStore): FastifyPluginAsyncTypebox {
  const missing = (request: FastifyRequest, reply: FastifyReply) => refuse(request, reply, { kind: 'missing' });
  const unlockAction = (token: string) => `${statsPath(token)}/unlock`;

  return async (app) => {
    await app.register(formbody, { bodyLimit: 4096 });

    app.get(
      '/stats/:token',
      {
        schema: {
          params: Params,
          querystring: Type.Object({
            period: Type.Optional(Type.String()),
            from: Type.Optional(Type.String()),
            to: Type.Optional(Type.String()),
          }),
          hide: true,
        },
      },
      async (request, reply) => {
        const { token } = request.params;
        const opened = await openShare(ctx, token);
        if (!opened) return missing(request, reply);
        if (!isUnlocked(ctx, opened.share, request.headers.cookie)) {
          return reply
            .code(401)
            .headers(FORM_PAGE)
            .send(passwordPage({ action: unlockAction(token) }));
        }
        const chosen = choiceOf(request.query);
        const page = { title: opened.tag.title, path: statsPath(token), chosen };
        try {
          const report = await sharedReport(ctx, opened, chosen);
          return reply
            .code(200)
            .headers(STATS_PAGE)
            .send(renderStatsPage({ ...page, report }));
        } catch (error) {
          return reply
            .code(400)
            .headers(STATS_PAGE)
            .send(renderStatsPage({ ...page, problem: problemOf(error) }));
        }
      },
    );

    app.post(
      '/stats/:token/unlock',
      { schema: { params: Params, body: Type.Object({ password: Type.Optional(Type.String()) }), hide: true } },
      async (request, reply) => {
        const { token } = request.params;
        const opened = await openShare(ctx, token);
        if (!opened) return missing(request, reply);
        return answerPasswordTry(ctx, limits, request, reply, {
          locked: opened.share,
          password: request.body.password,
          form: (problem) => passwordPage({ action: unlockAction(token), problem }),
          cookiePath: statsPath(token),
          back: statsPath(token),
        });
      },
    );

    app.get('/assets/stats.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=86400').send(STATS_CSS),
    );
  };
}
