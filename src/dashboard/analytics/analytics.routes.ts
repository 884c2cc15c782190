import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOfUser, PLAN_LIMITS, type SignedInUser } from '../../features/accounts/index.js';
import {
  linkClickReport,
  listTagLogs,
  MAX_VIEWS_OFFSET,
  overview,
  prepareExport,
  realtime,
  tagReport,
} from '../../features/analytics/index.js';
import { listShares } from '../../features/shares/index.js';
import { sendExport } from '../../http/send-export.js';
import { ApiError, validationError } from '../../errors.js';
import { fieldErrors, html, pageContext, queryParam, signedInUser, sentence, type Screen, type ScreenContext } from '../screen.js';
import { securityHeaders } from '../security.js';
import { addDays, GRANULARITIES, type Granularity, type PeriodForm } from './analytics-parts.js';
import { renderOverview } from './analytics.js';
import { renderLiveNumbers, renderTagAnalytics, type TagAnalyticsPage } from './analytics-tag.js';
import { userTag } from '../tags/user-tag.js';
import { readerZone } from '../reader-zone.js';
import { wallTimeOf } from '../../lib/zoned-time.js';
import { SHARE_NOTICES } from './shares.routes.js';

/** Access log entries per page; the API's offset cap bounds how far the pages reach. */
const LOGS_PER_PAGE = 25;
const LAST_LOGS_PAGE = Math.floor(MAX_VIEWS_OFFSET / LOGS_PER_PAGE) + 1;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (value: string) => DATE.test(value) && new Date(Date.parse(`${value}T00:00:00Z`) || 0).toISOString().startsWith(value);

/** A period the form accepted, with the query the analytics services take (their end is exclusive). */
type ReadPeriod = PeriodForm & { query?: { start_date: string; end_date: string } };

/** Today in `zone`: the last day of the default period, as the reports count it there. */
const today = (context: ScreenContext, zone: string) => wallTimeOf(context.clock.now(), zone).slice(0, 10);

/**
 * The period in the page's query: `from` and `to`, both days included, by default the last 30
 * days up to today (the API's default). Malformed or reversed dates are the form's errors.
 */
function readPeriod(request: FastifyRequest, day: string): ReadPeriod {
  const values = { from: queryParam(request, 'from') ?? addDays(day, -29), to: queryParam(request, 'to') ?? day };
  const errors: Record<string, string> = {};
  if (!isDay(values.from)) errors.from = 'Enter the first day as a date, e.g. 2026-11-01.';
  if (!isDay(values.to)) errors.to = 'Enter the last day as a date, e.g. 2026-11-30.';
  else if (!errors.from && values.to < values.from) errors.to = 'Choose a last day on or after the first day.';
  if (Object.keys(errors).length > 0) return { values, errors };
  return { values, errors, query: { start_date: values.from, end_date: addDays(values.to, 1) } };
}

/** The form field a service's refusal of the period names. */
const FIELD_OF: Record<string, string> = { start_date: 'from', end_date: 'to', granularity: 'granularity' };

/** A refused period as the form's errors; any other error is not the form's. */
function periodErrors(error: unknown): Record<string, string> {
  // The range is ordered (readPeriod): what is left is a period older than the plan's history.
  if (error instanceof ApiError && error.code === 'invalid_date_range') return { to: sentence(error.message) };
  const errors = fieldErrors(error, FIELD_OF);
  if (!errors) throw error;
  return errors;
}

function readGranularity(request: FastifyRequest): { granularity: Granularity; error?: string } {
  const value = queryParam(request, 'granularity') ?? 'day';
  if (GRANULARITIES.includes(value as Granularity)) return { granularity: value as Granularity };
  return { granularity: 'day', error: 'Choose hour, day, week or month.' };
}

function readPage(request: FastifyRequest): number {
  return Math.min(LAST_LOGS_PAGE, Math.max(1, Math.floor(Number(queryParam(request, 'page') ?? 1)) || 1));
}

/**
 * /dashboard/analytics (all the user's tags) and /dashboard/tags/{id}/analytics (one tag): the
 * analytics services' own figures for a period, as the API answers them; a tag's live viewers
 * (Enterprise), polled by the page; CSV and JSON exports streamed as the API streams them.
 */
export const analyticsScreen: Screen = (app, context) => {
  app.get('/analytics', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const zone = readerZone(request, user);
    const day = today(context, zone);
    const form = readPeriod(request, day);
    const view = { ...pageContext(context, request), user };
    if (!form.query) return html(reply, 400, renderOverview(view, { form, today: day, zone }));
    try {
      const report = await overview(context, actorOfUser(user), { ...form.query, timezone: zone, compare: 'previous' });
      return html(reply, 200, renderOverview(view, { form, today: day, zone, report }));
    } catch (error) {
      return html(reply, 400, renderOverview(view, { form: { ...form, errors: periodErrors(error) }, today: day, zone }));
    }
  });

  app.get<{ Params: { id: string } }>('/tags/:id/analytics', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const tag = await userTag(context, user, request.params.id);
    const zone = readerZone(request, user);
    const day = today(context, zone);
    const form = readPeriod(request, day);
    const { granularity, error } = readGranularity(request);
    if (error) form.errors.granularity = error;
    const live = PLAN_LIMITS[actor.plan].realtimeAnalytics ? await realtime(context, actor, { id: tag.id }) : undefined;
    const sharing = {
      shares: await listShares(context, actor, { id: tag.id }),
      notice: SHARE_NOTICES[queryParam(request, 'done') ?? ''],
      now: context.clock.now().toISOString(),
    };
    const page: TagAnalyticsPage = { tag, form, granularity, today: day, zone, live, sharing };
    const view = { ...pageContext(context, request), user };
    if (!form.query || error) return html(reply, 400, renderTagAnalytics(view, page));
    const pageNumber = readPage(request);
    try {
      const [report, clicks, logs] = await Promise.all([
        tagReport(context, actor, { id: tag.id, ...form.query, timezone: zone, granularity, compare: 'previous' }),
        linkClickReport(context, actor, { id: tag.id, ...form.query, timezone: zone }),
        tag.access_logging
          ? listTagLogs(context, actor, {
              id: tag.id,
              ...form.query,
              limit: LOGS_PER_PAGE,
              offset: (pageNumber - 1) * LOGS_PER_PAGE,
              level: 'detailed',
            })
          : undefined,
      ]);
      const reachable = LAST_LOGS_PAGE * LOGS_PER_PAGE;
      return html(
        reply,
        200,
        renderTagAnalytics(view, {
          ...page,
          report,
          clicks,
          logs: logs && { records: logs.logs, page: pageNumber, perPage: LOGS_PER_PAGE, total: logs.total, reachable },
        }),
      );
    } catch (error) {
      return html(reply, 400, renderTagAnalytics(view, { ...page, form: { ...form, errors: periodErrors(error) } }));
    }
  });

  // The live figures alone, which the tag's page polls; 403 on plans without real-time analytics.
  // A fragment, not a page: once the session is over it answers 401, which htmx swaps in for
  // nothing, instead of a redirect to the sign-in page that it would put inside the card.
  const fragment = { schema: { hide: true }, config: { signedOut: 'fragment' as const } };
  app.get<{ Params: { id: string } }>('/tags/:id/analytics/live', fragment, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const tag = await userTag(context, user, request.params.id);
    return html(reply, 200, renderLiveNumbers(await realtime(context, actor, { id: tag.id })));
  });

  const download = async (request: FastifyRequest, reply: FastifyReply, user: SignedInUser, tagIds?: string) => {
    const format = queryParam(request, 'format');
    if (format !== 'csv' && format !== 'json') throw validationError('format', 'format must be csv or json');
    const zone = readerZone(request, user);
    const { query, errors } = readPeriod(request, today(context, zone));
    if (!query) throw validationError(Object.keys(errors)[0]!, Object.values(errors)[0]!);
    const prepared = await prepareExport(context, actorOfUser(user), { ...query, timezone: zone, format, tag_ids: tagIds });
    return sendExport(securityHeaders(reply), prepared);
  };

  app.get('/analytics/export', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return download(request, reply, user);
  });

  app.get<{ Params: { id: string } }>('/tags/:id/analytics/export', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    // The tag first: another user's answers 404, and a comma in the address names no second tag.
    const tag = await userTag(context, user, request.params.id);
    return download(request, reply, user, tag.id);
  });
};
