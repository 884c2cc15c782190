import type { ServiceContext } from '../../context.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { TAG_REF_PATTERN } from '../../lib/ids.js';
import { dataEnvelope, Pagination, pagination, PaginationQuery } from '../../http/envelope.js';
import * as analytics from './analytics.service.js';
import { prepareExport, sendExport } from './export.js';

const ANALYTICS = ['Analytics'];
const permission = 'analytics:read' as const;

const dates = {
  start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD, first day (UTC); default 29 days before today' })),
  end_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD, the day after the last (UTC, exclusive); default tomorrow' })),
};
/**
 * Views and logs page by offset, and a database reaches an offset only by stepping over every
 * row before it (on SQLite on the thread that answers every request): the offset is capped, so
 * one request stays short however many views a tag has. The export reads every view.
 */
export const MAX_VIEWS_OFFSET = 10_000;
const ViewsPagination = {
  ...PaginationQuery,
  offset: Type.Integer({
    minimum: 0,
    maximum: MAX_VIEWS_OFFSET,
    default: 0,
    description: `Items to skip, at most ${MAX_VIEWS_OFFSET.toLocaleString('en-US')} (more: 400 validation_error naming offset; GET /v1/analytics/export has every view)`,
  }),
};
const TagParams = Type.Object({ id: Type.String({ pattern: TAG_REF_PATTERN, description: 'Tag id or short id' }) });
const Period = Type.Object({ start: Type.String(), end: Type.String({ description: 'Exclusive' }) });
const Counts = Type.Record(Type.String(), Type.Integer());
const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableInteger = Type.Union([Type.Integer(), Type.Null()]);

const Report = Type.Object({
  tag_id: Type.String(),
  period: Period,
  summary: Type.Object({
    total_views: Type.Integer(),
    unique_views: Type.Integer({ description: 'Distinct visitors in the period' }),
    qr_scans: Type.Integer(),
    direct_visits: Type.Integer(),
    average_time_seconds: Type.Integer(),
  }),
  by_device: Type.Object({ mobile: Type.Integer(), desktop: Type.Integer(), tablet: Type.Integer() }),
  by_country: Counts,
  by_browser: Counts,
  timeseries: Type.Array(Type.Object({ date: Type.String(), views: Type.Integer(), unique: Type.Integer() })),
});

const ViewRecord = Type.Object({
  id: Type.String(),
  timestamp: Type.String(),
  source: Type.String(),
  device: Type.String(),
  browser: Type.String(),
  os: Type.String(),
  country: nullableString,
  region: nullableString,
  duration_seconds: nullableInteger,
});

const LogRecord = Type.Object(
  {
    id: Type.String(),
    timestamp: Type.String(),
    event: Type.String(),
    source: Type.String(),
    ip_address: Type.Optional(nullableString),
    user_agent: Type.Optional(nullableString),
    device: Type.Object({ type: Type.String(), os: Type.Optional(Type.String()), browser: Type.Optional(Type.String()) }),
    location: Type.Object({ country: nullableString, region: Type.Optional(nullableString), city: Type.Optional(nullableString) }),
    referrer: Type.Optional(nullableString),
    duration_seconds: nullableInteger,
  },
  { description: 'level=basic: id, timestamp, event, source, device.type, location.country, duration_seconds' },
);

export function analyticsRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/tags/:id/analytics',
      {
        config: { permission },
        schema: {
          summary: "A tag's views: summary, breakdowns and a zero-filled time series",
          tags: ANALYTICS,
          params: TagParams,
          querystring: Type.Object({ ...dates, granularity: Type.Enum(['hour', 'day', 'week', 'month'], { default: 'day' }) }),
          response: { 200: dataEnvelope(Report) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await analytics.tagReport(ctx, request.actor, { ...request.query, id: request.params.id }),
      }),
    );

    app.get(
      '/tags/:id/analytics/views',
      {
        config: { permission },
        schema: {
          summary: "A tag's individual views, newest first",
          tags: ANALYTICS,
          params: TagParams,
          querystring: Type.Object({ ...dates, ...ViewsPagination }),
          response: {
            200: Type.Object({ success: Type.Literal(true), data: Type.Object({ views: Type.Array(ViewRecord) }), pagination: Pagination }),
          },
        },
      },
      async (request) => {
        const { total, views } = await analytics.listTagViews(ctx, request.actor, { ...request.query, id: request.params.id });
        return { success: true as const, data: { views }, pagination: pagination(total, request.query.limit, request.query.offset) };
      },
    );

    app.get(
      '/tags/:id/analytics/logs',
      {
        config: { permission },
        schema: {
          summary: "A tag's access log (requires access_logging on the tag)",
          tags: ANALYTICS,
          params: TagParams,
          querystring: Type.Object({ ...dates, ...ViewsPagination, level: Type.Enum(['basic', 'detailed'], { default: 'detailed' }) }),
          response: {
            200: Type.Object({ success: Type.Literal(true), data: Type.Object({ logs: Type.Array(LogRecord) }), pagination: Pagination }),
          },
        },
      },
      async (request) => {
        const { total, logs } = await analytics.listTagLogs(ctx, request.actor, { ...request.query, id: request.params.id });
        return { success: true as const, data: { logs }, pagination: pagination(total, request.query.limit, request.query.offset) };
      },
    );

    app.get(
      '/tags/:id/analytics/realtime',
      {
        config: { permission },
        schema: {
          summary: 'Who is viewing the tag now (Enterprise)',
          tags: ANALYTICS,
          params: TagParams,
          response: {
            200: dataEnvelope(
              Type.Object({
                current_viewers: Type.Integer(),
                views_last_hour: Type.Integer(),
                views_last_24h: Type.Integer(),
                active_sessions: Type.Array(Type.Object({ started_at: Type.String(), device: Type.String(), country: nullableString })),
              }),
            ),
          },
        },
      },
      async (request) => ({ success: true as const, data: await analytics.realtime(ctx, request.actor, request.params) }),
    );

    app.get(
      '/analytics/overview',
      {
        config: { permission },
        schema: {
          summary: 'Account-wide totals, top tags and views by day',
          tags: ANALYTICS,
          querystring: Type.Object(dates),
          response: {
            200: dataEnvelope(
              Type.Object({
                period: Period,
                totals: Type.Object({
                  views: Type.Integer(),
                  unique_views: Type.Integer({ description: 'Distinct visitors of all the tags over the period' }),
                  qr_scans: Type.Integer(),
                  tags_created: Type.Integer(),
                  files_uploaded: Type.Integer(),
                }),
                top_tags: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), views: Type.Integer() })),
                by_day: Type.Array(Type.Object({ date: Type.String(), views: Type.Integer(), scans: Type.Integer() })),
              }),
            ),
          },
        },
      },
      async (request) => ({ success: true as const, data: await analytics.overview(ctx, request.actor, request.query) }),
    );

    app.get(
      '/analytics/export',
      {
        config: { permission },
        schema: {
          summary: 'Export per tag and day rows as CSV or JSON (streamed)',
          tags: ANALYTICS,
          querystring: Type.Object({
            ...dates,
            format: Type.Enum(['csv', 'json'], { default: 'csv' }),
            include: Type.Optional(
              Type.String({
                description:
                  'Comma-separated: views, logs, summary (default summary; JSON only). Logs are those of tags with access logging on; in a JSON export with logs, a tag_ids entry without it is 403 analytics_not_enabled',
              }),
            ),
            tag_ids: Type.Optional(Type.String({ description: 'Comma-separated tag ids; default every tag' })),
          }),
          response: {
            200: {
              description:
                'text/csv with header date,tag_id,tag_title,views,unique_views,qr_scans,direct_visits (a title starting with =, +, -, @, tab or CR gets a leading apostrophe, so spreadsheets do not run it as a formula); or JSON { data: { export_date, period, rows, views?, logs? } }',
              content: { 'text/csv': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
      async (request, reply) => {
        return sendExport(reply, await prepareExport(ctx, request.actor, request.query));
      },
    );
  };
}
