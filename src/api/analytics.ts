import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.js';
import * as analytics from '../features/analytics/index.js';
import { dataEnvelope, Pagination, pagination, PaginationQuery } from '../http/envelope.js';
import { sendExport } from '../http/send-export.js';
import { component } from '../lib/components.js';
import { TAG_REF_PATTERN } from '../lib/ids.js';

const ANALYTICS = ['Analytics'];
const permission = 'analytics:read' as const;

const dates = {
  start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD, first day (UTC); default 29 days before today' })),
  end_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD, the day after the last (UTC, exclusive); default tomorrow' })),
};
const timezone = {
  timezone: Type.Optional(
    Type.String({
      description:
        'IANA time zone of the dates, buckets and bucket keys (Europe/Berlin); default UTC. Unknown → 400 validation_error, field timezone',
    }),
  ),
};
const compare = {
  compare: Type.Optional(
    Type.Enum(['previous'], {
      description:
        'previous: add `previous` (the same figures for the period of the same length just before) and `change` (per cent per figure)',
    }),
  ),
};
/** compare=previous: each figure's change in per cent from the previous period, to one decimal; null when that was 0. */
const Change = (figures: string[]) =>
  Type.Optional(
    Type.Object(Object.fromEntries(figures.map((figure) => [figure, Type.Union([Type.Number(), Type.Null()])])), {
      description: 'Per cent change of each figure from the previous period (one decimal); null when the previous figure is 0',
    }),
  );
const ViewsPagination = {
  ...PaginationQuery,
  offset: Type.Integer({
    minimum: 0,
    maximum: analytics.MAX_VIEWS_OFFSET,
    default: 0,
    description: `Items to skip, at most ${analytics.MAX_VIEWS_OFFSET.toLocaleString('en-US')} (more: 400 validation_error naming offset; GET /v1/analytics/export has every view)`,
  }),
};
const TagParams = Type.Object({ id: Type.String({ pattern: TAG_REF_PATTERN, description: 'Tag id or short id' }) });
const Period = Type.Object({ start: Type.String(), end: Type.String({ description: 'Exclusive' }) });
const Counts = Type.Record(Type.String(), Type.Integer());
/** A later breakdown (issue #34): the ten largest values, then `other` and `unknown`. */
const Breakdown = (description: string) =>
  Type.Record(Type.String(), Type.Integer(), {
    description: `${description}: the ten largest, then the rest summed under \`other\` and views without one under \`unknown\``,
  });
const ReferrerBreakdown = Breakdown('Views by referring host (without www.); `direct` for views from no other site');
const UtmSourceBreakdown = Breakdown("Views by the page address's utm_source parameter");
const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableInteger = Type.Union([Type.Integer(), Type.Null()]);
/** The page address's UTM parameters at the view: null when it had none. */
const Campaign = {
  utm_source: nullableString,
  utm_medium: nullableString,
  utm_campaign: nullableString,
};
const NO_CAMPAIGN = { utm_source: null, utm_medium: null, utm_campaign: null };

/** Bot requests (issue #34): beside the human figures, never among them. */
const BotViews = Type.Integer({
  description: 'Requests for public pages from known bots, crawlers and link previewers in the period: counted apart, never in the views',
});
const Summary = Type.Object({
  total_views: Type.Integer(),
  unique_views: Type.Integer({ description: 'Distinct visitors in the period' }),
  qr_scans: Type.Integer(),
  direct_visits: Type.Integer(),
  average_time_seconds: Type.Integer(),
  bot_views: BotViews,
});
const Totals = Type.Object({
  views: Type.Integer(),
  unique_views: Type.Integer({ description: 'Distinct visitors of all the tags over the period' }),
  qr_scans: Type.Integer(),
  tags_created: Type.Integer(),
  files_uploaded: Type.Integer(),
  bot_views: BotViews,
});

const PERIOD_EXAMPLE = { start: '2026-11-01', end: '2026-11-03' };

const Report = Type.Object(
  {
    tag_id: Type.String(),
    period: Period,
    timezone: Type.String({ description: 'The time zone of the period and the buckets (IANA name)' }),
    summary: Summary,
    previous: Type.Optional(
      Type.Object({ period: Period, summary: Summary }, { description: 'compare=previous: the period of the same length just before' }),
    ),
    change: Change(Object.keys(Summary.properties)),
    by_device: Type.Object({ mobile: Type.Integer(), desktop: Type.Integer(), tablet: Type.Integer() }),
    by_country: Counts,
    by_browser: Counts,
    by_referrer: ReferrerBreakdown,
    by_os: Breakdown('Views by operating system'),
    by_city: Type.Array(Type.Object({ city: Type.String(), country: nullableString, views: Type.Integer() }), {
      description: 'The ten cities with most views, then `other` and `unknown` (country null)',
    }),
    by_utm_source: UtmSourceBreakdown,
    by_utm_medium: Breakdown("Views by the page address's utm_medium parameter"),
    by_utm_campaign: Breakdown("Views by the page address's utm_campaign parameter"),
    timeseries: Type.Array(Type.Object({ date: Type.String(), views: Type.Integer(), unique: Type.Integer() })),
  },
  {
    ...component('TagReport'),
    examples: [
      {
        tag_id: 'tag_01jd8x3k5q7m2n4p6r8s0t2v4w',
        period: PERIOD_EXAMPLE,
        timezone: 'Europe/Berlin',
        summary: { total_views: 57, unique_views: 31, qr_scans: 40, direct_visits: 17, average_time_seconds: 42, bot_views: 12 },
        by_device: { mobile: 44, desktop: 11, tablet: 2 },
        by_country: { DE: 30, FR: 27 },
        by_browser: { Safari: 29, Chrome: 28 },
        by_referrer: { direct: 45, 'news.example.com': 12 },
        by_os: { iOS: 31, Android: 15, Windows: 11 },
        by_city: [
          { city: 'Berlin', country: 'DE', views: 30 },
          { city: 'Paris', country: 'FR', views: 27 },
        ],
        by_utm_source: { poster: 40, newsletter: 12, unknown: 5 },
        by_utm_medium: { print: 40, email: 12, unknown: 5 },
        by_utm_campaign: { 'spring-launch': 52, unknown: 5 },
        timeseries: [
          { date: '2026-11-01', views: 25, unique: 14 },
          { date: '2026-11-02', views: 32, unique: 19 },
        ],
      },
    ],
  },
);

const ClickReport = Type.Object(
  {
    tag_id: Type.String(),
    period: Period,
    timezone: Type.String({ description: 'The time zone of the period (IANA name)' }),
    total_clicks: Type.Integer({
      description: "Every counted click of the tag's links in the period, those of link blocks since removed too",
    }),
    blocks: Type.Array(
      Type.Object({
        block_id: Type.String({ description: 'blk_…' }),
        url: Type.String(),
        label: Type.String(),
        clicks: Type.Integer(),
        unique_clicks: Type.Integer({ description: 'Distinct visitors who clicked it in the period' }),
      }),
      { description: "The tag's current http(s) link blocks, in the page's order (tel:, mailto: and sms: links are not counted)" },
    ),
  },
  {
    ...component('LinkClickReport'),
    examples: [
      {
        tag_id: 'tag_01jd8x3k5q7m2n4p6r8s0t2v4w',
        period: PERIOD_EXAMPLE,
        timezone: 'UTC',
        total_clicks: 23,
        blocks: [
          {
            block_id: 'blk_01jd8x3k5q7m2n4p6r8s0t2v4z',
            url: 'https://calendar.example.com/rooms/b',
            label: 'Book the room',
            clicks: 17,
            unique_clicks: 12,
          },
          {
            block_id: 'blk_01jd8x3k5q7m2n4p6r8s0t2v50',
            url: 'https://example.com/floor-plan',
            label: 'Floor plan',
            clicks: 6,
            unique_clicks: 6,
          },
        ],
      },
    ],
  },
);

const ViewRecord = Type.Object(
  {
    id: Type.String(),
    timestamp: Type.String(),
    source: Type.String(),
    device: Type.String(),
    browser: Type.String(),
    os: Type.String(),
    country: nullableString,
    region: nullableString,
    duration_seconds: nullableInteger,
    ...Campaign,
  },
  {
    ...component('ViewRecord'),
    examples: [
      {
        id: 'view_01jd8y7c9e1g3j5k7n9q1s3t5w',
        timestamp: '2026-11-02T14:03:51.220Z',
        source: 'qr_scan',
        device: 'mobile',
        browser: 'Safari',
        os: 'iOS',
        country: 'DE',
        region: 'BE',
        duration_seconds: 38,
        utm_source: 'poster',
        utm_medium: 'print',
        utm_campaign: 'spring-launch',
      },
    ],
  },
);

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
    utm_source: Type.Optional(nullableString),
    utm_medium: Type.Optional(nullableString),
    utm_campaign: Type.Optional(nullableString),
  },
  {
    ...component('LogRecord'),
    description: 'level=basic: id, timestamp, event, source, device.type, location.country, duration_seconds',
    examples: [
      {
        id: 'view_01jd8y7c9e1g3j5k7n9q1s3t5w',
        timestamp: '2026-11-02T14:03:51.220Z',
        event: 'view',
        source: 'qr_scan',
        ip_address: '203.0.113.7',
        user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)',
        device: { type: 'mobile', os: 'iOS', browser: 'Safari' },
        location: { country: 'DE', region: 'BE', city: 'Berlin' },
        referrer: null,
        duration_seconds: 38,
        ...NO_CAMPAIGN,
      },
    ],
  },
);

export function analyticsRoutes(ctx: ServiceContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/tags/:id/analytics',
      {
        config: { permission },
        schema: {
          operationId: 'getTagAnalytics',
          summary: "A tag's views: summary, breakdowns and a zero-filled time series",
          tags: ANALYTICS,
          params: TagParams,
          querystring: Type.Object({
            ...dates,
            ...timezone,
            ...compare,
            granularity: Type.Enum(['hour', 'day', 'week', 'month'], { default: 'day' }),
          }),
          response: { 200: dataEnvelope(Report) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await analytics.tagReport(ctx, request.actor, { ...request.query, id: request.params.id }),
      }),
    );

    app.get(
      '/tags/:id/analytics/clicks',
      {
        config: { permission },
        schema: {
          operationId: 'getTagLinkClicks',
          summary: "Clicks of a tag's http(s) link blocks, per block",
          tags: ANALYTICS,
          params: TagParams,
          querystring: Type.Object({ ...dates, ...timezone }),
          response: { 200: dataEnvelope(ClickReport) },
        },
      },
      async (request) => ({
        success: true as const,
        data: await analytics.linkClickReport(ctx, request.actor, { ...request.query, id: request.params.id }),
      }),
    );

    app.get(
      '/tags/:id/analytics/views',
      {
        config: { permission },
        schema: {
          operationId: 'listTagViews',
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
          operationId: 'listTagLogs',
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
          operationId: 'getTagRealtime',
          summary: 'Who is viewing the tag now (Enterprise)',
          tags: ANALYTICS,
          params: TagParams,
          response: {
            200: dataEnvelope(
              Type.Object(
                {
                  current_viewers: Type.Integer(),
                  views_last_hour: Type.Integer(),
                  views_last_24h: Type.Integer(),
                  active_sessions: Type.Array(Type.Object({ started_at: Type.String(), device: Type.String(), country: nullableString })),
                },
                {
                  ...component('Realtime'),
                  examples: [
                    {
                      current_viewers: 1,
                      views_last_hour: 6,
                      views_last_24h: 57,
                      active_sessions: [{ started_at: '2026-11-25T10:01:02.000Z', device: 'mobile', country: 'DE' }],
                    },
                  ],
                },
              ),
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
          operationId: 'getAnalyticsOverview',
          summary: 'Account-wide totals, top tags and views by day',
          tags: ANALYTICS,
          querystring: Type.Object({ ...dates, ...timezone, ...compare }),
          response: {
            200: dataEnvelope(
              Type.Object(
                {
                  period: Period,
                  timezone: Type.String({ description: 'The time zone of the period and by_day (IANA name)' }),
                  totals: Totals,
                  previous: Type.Optional(
                    Type.Object(
                      { period: Period, totals: Totals },
                      { description: 'compare=previous: the period of the same length just before' },
                    ),
                  ),
                  change: Change(Object.keys(Totals.properties)),
                  top_tags: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), views: Type.Integer() })),
                  by_day: Type.Array(Type.Object({ date: Type.String(), views: Type.Integer(), scans: Type.Integer() })),
                  by_referrer: ReferrerBreakdown,
                  by_utm_source: UtmSourceBreakdown,
                },
                {
                  ...component('AnalyticsOverview'),
                  examples: [
                    {
                      period: PERIOD_EXAMPLE,
                      timezone: 'UTC',
                      totals: { views: 57, unique_views: 31, qr_scans: 40, tags_created: 3, files_uploaded: 2, bot_views: 12 },
                      top_tags: [{ id: 'tag_01jd8x3k5q7m2n4p6r8s0t2v4w', title: 'Conference room B', views: 57 }],
                      by_day: [
                        { date: '2026-11-01', views: 25, scans: 18 },
                        { date: '2026-11-02', views: 32, scans: 22 },
                      ],
                      by_referrer: { direct: 45, 'news.example.com': 12 },
                      by_utm_source: { poster: 40, newsletter: 12, unknown: 5 },
                    },
                  ],
                },
              ),
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
          operationId: 'exportAnalytics',
          summary: 'Export per tag and day rows as CSV or JSON (streamed)',
          tags: ANALYTICS,
          querystring: Type.Object({
            ...dates,
            ...timezone,
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
        return sendExport(reply, await analytics.prepareExport(ctx, request.actor, request.query));
      },
    );
  };
}
