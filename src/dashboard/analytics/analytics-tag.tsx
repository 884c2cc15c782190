import { renderToString } from 'preact-render-to-string';
import type { SignedInUser } from '../../features/accounts/index.js';
import type { TagView } from '../../features/tags/index.js';
import { Alert } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import {
  Breakdowns,
  Chart,
  comparisonOf,
  describePeriod,
  Downloads,
  GRANULARITIES,
  PeriodPicker,
  ranked,
  referrerRows,
  Stats,
  StatsCard,
  BotRequests,
  utmHint,
  utmRows,
  valueName,
  ZoneNote,
  type Breakdown,
  type Granularity,
  type PeriodForm,
} from './analytics-parts.js';
import { DataTable, formatNumber, Pager, When, withQuery } from '../components/table.js';
import { TagHeader, tagPath } from '../tags/tag-header.js';
import { EMPTY_SHARE_FORM, ShareCard, type ShareCardProps } from './share-card.js';
import type { UserTag } from '../tags/user-tag.js';

type Summary = {
  total_views: number;
  unique_views: number;
  qr_scans: number;
  direct_visits: number;
  average_time_seconds: number;
  bot_views: number;
};

/** What GET /v1/tags/{id}/analytics answers (the service's result), asked with compare=previous. */
export interface TagReport {
  period: { start: string; end: string };
  summary: Summary;
  previous?: { period: { start: string; end: string } };
  change?: Record<keyof Summary, number | null>;
  by_device: { mobile: number; desktop: number; tablet: number };
  by_country: Record<string, number>;
  by_browser: Record<string, number>;
  by_referrer: Record<string, number>;
  by_os: Record<string, number>;
  by_city: ReadonlyArray<{ city: string; country: string | null; views: number }>;
  by_utm_source: Record<string, number>;
  by_utm_medium: Record<string, number>;
  by_utm_campaign: Record<string, number>;
  timeseries: ReadonlyArray<{ date: string; views: number; unique: number }>;
}

/** What GET /v1/tags/{id}/analytics/clicks answers (the service's result). */
export interface ClickReport {
  total_clicks: number;
  blocks: ReadonlyArray<{ block_id: string; url: string; label: string; clicks: number; unique_clicks: number }>;
}

/** A record of GET /v1/tags/{id}/analytics/logs at level=detailed. */
export interface LogRecord {
  id: string;
  timestamp: string;
  source: string;
  ip_address?: string | null;
  user_agent?: string | null;
  device: { type: string; os?: string; browser?: string };
  location: { country: string | null; region?: string | null; city?: string | null };
  referrer?: string | null;
  duration_seconds: number | null;
}

/** What GET /v1/tags/{id}/analytics/realtime counts. */
export interface LiveFigures {
  current_viewers: number;
  views_last_hour: number;
  views_last_24h: number;
}

export interface TagAnalyticsPage {
  tag: UserTag;
  form: PeriodForm;
  granularity: Granularity;
  today: string;
  /** The time zone the report's days and hours are in (the reader's). */
  zone: string;
  /** Absent when the period or granularity was refused (the form shows why). */
  report?: TagReport;
  /** The link blocks' clicks over the same period; absent with `report`. */
  clicks?: ClickReport;
  /** The access log's page; absent while the tag keeps none. */
  logs?: {
    records: readonly LogRecord[];
    page: number;
    perPage: number;
    total: number;
    /** How many entries the pages reach (the API caps the offset); the rest are in the export. */
    reachable: number;
  };
  /** Real-time figures (Enterprise); undefined on other plans. */
  live?: LiveFigures;
  /** The tag's share links, for the Share card. */
  sharing: Pick<ShareCardProps, 'shares' | 'notice' | 'now'>;
}

const GRANULARITY_LABELS: Record<Granularity, string> = { hour: 'Hour', day: 'Day', week: 'Week', month: 'Month' };
const DEVICE_LABELS = { mobile: 'Mobile', desktop: 'Desktop', tablet: 'Tablet' } as const;
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

function countryName(code: string | null | undefined): string {
  if (!code || code === 'other' || code === 'unknown') return valueName(code ?? 'unknown');
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** 75 → "1m 15s"; 9 → "9s". */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
}

function GranularitySwitch({ path, query, current }: { path: string; query: Record<string, string>; current: Granularity }) {
  return (
    <nav class="segmented" aria-label="Granularity">
      {GRANULARITIES.map((granularity) => (
        <a key={granularity} href={withQuery(path, { ...query, granularity })} aria-current={granularity === current ? 'true' : undefined}>
          {GRANULARITY_LABELS[granularity]}
        </a>
      ))}
    </nav>
  );
}

/** "Berlin, Germany"; the rest and the views of no known place in words. */
function cityName({ city, country }: { city: string; country: string | null }): string {
  return country ? `${city}, ${countryName(country)}` : valueName(city);
}

/** Every breakdown of the report, in the order the page shows them. */
function breakdownsOf(report: TagReport): Breakdown[] {
  const named = (counts: Record<string, number>) => ranked(counts).map(([key, views]) => ({ key, name: valueName(key), views }));
  return [
    {
      id: 'device',
      heading: 'Devices',
      label: 'Device',
      rows: (Object.keys(DEVICE_LABELS) as Array<keyof typeof DEVICE_LABELS>)
        .map((key) => ({ key, name: DEVICE_LABELS[key], views: report.by_device[key] }))
        .sort((a, b) => b.views - a.views),
    },
    {
      id: 'country',
      heading: 'Countries',
      label: 'Country',
      rows: ranked(report.by_country).map(([code, views]) => ({ key: code, name: countryName(code), views })),
    },
    {
      id: 'city',
      heading: 'Cities',
      label: 'City',
      // The service lists the rest and the unknown last already.
      rows: report.by_city.map((city) => ({ key: `${city.city}|${city.country ?? ''}`, name: cityName(city), views: city.views })),
    },
    { id: 'referrer', heading: 'Referrers', label: 'Referrer', rows: referrerRows(report.by_referrer) },
    { id: 'browser', heading: 'Browsers', label: 'Browser', rows: named(report.by_browser) },
    { id: 'os', heading: 'Operating systems', label: 'Operating system', rows: named(report.by_os) },
    {
      id: 'utm-source',
      heading: 'UTM sources',
      label: 'utm_source',
      rows: utmRows(report.by_utm_source),
      whenNone: utmHint('utm_source', 'newsletter'),
    },
    {
      id: 'utm-medium',
      heading: 'UTM mediums',
      label: 'utm_medium',
      rows: utmRows(report.by_utm_medium),
      whenNone: utmHint('utm_medium', 'email'),
    },
    {
      id: 'utm-campaign',
      heading: 'UTM campaigns',
      label: 'utm_campaign',
      rows: utmRows(report.by_utm_campaign),
      whenNone: utmHint('utm_campaign', 'spring-sale'),
    },
  ];
}

/** The live figures; also the fragment the page polls (htmx) to keep them current. */
function LiveNumbers({ live }: { live: LiveFigures }) {
  return (
    <Stats
      items={[
        {
          key: 'current_viewers',
          label: (
            <>
              <span class="pulse" aria-hidden="true"></span>Viewing now
            </>
          ),
          value: formatNumber(live.current_viewers),
        },
        { key: 'views_last_hour', label: 'Views, last hour', value: formatNumber(live.views_last_hour) },
        { key: 'views_last_24h', label: 'Views, last 24 hours', value: formatNumber(live.views_last_24h) },
      ]}
    />
  );
}

export function renderLiveNumbers(live: LiveFigures): string {
  return renderToString(<LiveNumbers live={live} />);
}

/** Seconds between two polls of the live figures: the API counts a viewer seen in the last 60 s. */
const LIVE_POLL = 'every 3s';

function Live({ tag, live }: { tag: TagView; live: LiveFigures | undefined }) {
  return (
    <section class="card" aria-labelledby="live-heading">
      <h2 id="live-heading">Real time</h2>
      {live ? (
        <div hx-get={`${tagPath(tag, 'analytics')}/live`} hx-trigger={LIVE_POLL} hx-swap="innerHTML" class="live">
          <LiveNumbers live={live} />
        </div>
      ) : (
        <p class="muted">
          Who is viewing this tag right now, updated live, is an Enterprise feature. Your plan shows the reports below, which count every
          view as soon as it happens.
        </p>
      )}
    </section>
  );
}

function LogRow({ record }: { record: LogRecord }) {
  const place = [record.location.city, record.location.region].filter(Boolean).join(', ');
  return (
    <tr>
      <th scope="row" data-label="Time">
        <When at={record.timestamp} />
      </th>
      <td data-label="Source">{record.source === 'qr_scan' ? 'QR scan' : record.source === 'direct' ? 'Direct' : record.source}</td>
      <td data-label="Device">
        {`${record.device.type}`}
        <span class="muted">{` · ${[record.device.browser, record.device.os].filter(Boolean).join(', ')}`}</span>
      </td>
      <td data-label="Location">
        {countryName(record.location.country)}
        {place && <span class="muted">{` · ${place}`}</span>}
      </td>
      <td data-label="IP address">{record.ip_address ? <code>{record.ip_address}</code> : <span class="muted">—</span>}</td>
      <td data-label="Referrer" class="cell-wrap">
        {record.referrer ?? <span class="muted">—</span>}
      </td>
      <td data-label="Time on page">
        {record.duration_seconds === null ? <span class="muted">—</span> : duration(record.duration_seconds)}
      </td>
    </tr>
  );
}

function AccessLog({ tag, logs, query }: { tag: TagView; logs: TagAnalyticsPage['logs']; query: Record<string, string> }) {
  return (
    <section class="card" aria-labelledby="log-heading">
      <h2 id="log-heading">Access log</h2>
      {!logs ? (
        <p class="muted">
          Access logging is off for this tag, so it keeps no per-visit log (the reports above count every view either way). Turn on{' '}
          <strong>Access logging</strong> in <a href={tagPath(tag, 'edit')}>Edit</a>, or set <code>access_logging</code> to{' '}
          <code>true</code> with <code>PUT /v1/tags/{'{id}'}</code>; visits from then on are logged here.
        </p>
      ) : logs.records.length === 0 ? (
        <p class="muted">No logged visits in this period.</p>
      ) : (
        <>
          <DataTable
            label="Access log records"
            headings={['Time', 'Source', 'Device', 'Location', 'IP address', 'Referrer', 'Time on page']}
          >
            {logs.records.map((record) => (
              <LogRow key={record.id} record={record} />
            ))}
          </DataTable>
          <Pager
            page={logs.page}
            perPage={logs.perPage}
            total={Math.min(logs.total, logs.reachable)}
            path={withQuery(tagPath(tag, 'analytics'), query)}
            label="Pages of the access log"
          />
          {logs.total > logs.reachable && (
            <p class="field-hint">
              {`These pages reach the newest ${formatNumber(logs.reachable)} of ${formatNumber(logs.total)} entries; `}
              the API’s JSON export (<code>include=logs</code>) has them all.
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** Clicks as a share of views, "12.5%"; a dash without views (no rate to speak of). */
function clickThroughRate(clicks: number, views: number): string {
  return views === 0 ? '—' : `${((clicks / views) * 100).toFixed(1)}%`;
}

/**
 * The clicks of each of the page's web links (a link block with an http or https address: tel:,
 * mailto: and sms: links go straight to the visitor's app, uncounted) over the report's period,
 * with its click-through rate against the page's views of the same days.
 */
function LinkClicks({ clicks, views }: { clicks: ClickReport; views: number }) {
  const listed = clicks.blocks.reduce((sum, block) => sum + block.clicks, 0);
  return (
    <section class="card" aria-labelledby="clicks-heading">
      <h2 id="clicks-heading">Link clicks</h2>
      {clicks.blocks.length === 0 ? (
        <p class="muted">
          This page has no link blocks with a web address. Clicks on link blocks are counted here: add one on the <strong>Edit</strong> tab.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data-table clicks-table">
            <caption class="field-hint">
              {`Click-through rate: a link’s clicks divided by the page’s ${formatNumber(views)} views of the same period.`}
            </caption>
            <thead>
              <tr>
                {['Link', 'Address', 'Clicks', 'Unique clicks', 'Click-through rate'].map((heading) => (
                  <th key={heading} scope="col">
                    {heading}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {clicks.blocks.map((block) => (
                <tr key={block.block_id}>
                  <th scope="row" data-label="Link">
                    {block.label || <span class="muted">No label</span>}
                  </th>
                  <td data-label="Address" class="cell-wrap">
                    <a href={block.url} target="_blank" rel="noopener noreferrer">
                      {block.url}
                    </a>
                  </td>
                  <td data-label="Clicks" class="cell-number">
                    {formatNumber(block.clicks)}
                  </td>
                  <td data-label="Unique clicks" class="cell-number">
                    {formatNumber(block.unique_clicks)}
                  </td>
                  <td data-label="Click-through rate" class="cell-number">
                    {clickThroughRate(block.clicks, views)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {clicks.total_clicks > listed && (
        <p class="field-hint">{`${formatNumber(clicks.total_clicks)} clicks in all this period, ${formatNumber(clicks.total_clicks - listed)} of them on links since removed.`}</p>
      )}
    </section>
  );
}

function ReportCards({ page, report, query }: { page: TagAnalyticsPage; report: TagReport; query: Record<string, string> }) {
  const { summary } = report;
  const path = tagPath(page.tag, 'analytics');
  const label = GRANULARITY_LABELS[page.granularity].toLowerCase();
  return (
    <>
      <StatsCard
        heading="Summary"
        values={{ ...summary, average_time_seconds: duration(summary.average_time_seconds) }}
        compared={comparisonOf(report)}
        labels={[
          ['total_views', 'Views'],
          ['unique_views', 'Unique visitors'],
          ['qr_scans', 'QR scans'],
          ['direct_visits', 'Direct visits'],
          ['average_time_seconds', 'Average time'],
        ]}
      >
        <BotRequests count={summary.bot_views} />
      </StatsCard>
      <section class="card" aria-labelledby="series-title">
        <Chart
          id="series"
          title={`Views and unique visitors by ${label}`}
          data={{
            granularity: page.granularity,
            dates: report.timeseries.map((point) => point.date),
            series: [
              { label: 'Views', values: report.timeseries.map((point) => point.views) },
              { label: 'Unique visitors', values: report.timeseries.map((point) => point.unique) },
            ],
          }}
        >
          <GranularitySwitch path={path} query={{ ...page.form.values }} current={page.granularity} />
        </Chart>
      </section>
      <Breakdowns lists={breakdownsOf(report)} total={summary.total_views} />
      {page.clicks && <LinkClicks clicks={page.clicks} views={summary.total_views} />}
      <AccessLog tag={page.tag} logs={page.logs} query={query} />
    </>
  );
}

/** /dashboard/tags/{id}/analytics: one tag's report, live viewers, access log and export. */
export function renderTagAnalytics(context: PageContext & { user: SignedInUser }, page: TagAnalyticsPage): string {
  const { tag, report, form } = page;
  const query = { ...form.values, granularity: page.granularity };
  return renderAppPage(
    context,
    `Analytics · ${tag.title}`,
    <>
      <TagHeader tag={tag} current="analytics" />
      <p class="lead">{report ? `Views of this tag, ${describePeriod(report.period)}.` : 'Views of this tag.'}</p>
      <ZoneNote zone={page.zone} />
      <PeriodPicker path={tagPath(tag, 'analytics')} form={form} today={page.today} keep={{ granularity: page.granularity }} />
      {!report && (
        <>
          <Alert kind="error">{form.errors.granularity ?? 'No report for this period: correct the form above.'}</Alert>
          {form.errors.granularity && (
            <GranularitySwitch path={tagPath(tag, 'analytics')} query={{ ...form.values }} current={page.granularity} />
          )}
        </>
      )}
      <Live tag={tag} live={page.live} />
      {report && <ReportCards page={page} report={report} query={query} />}
      {report && <Downloads path={`${tagPath(tag, 'analytics')}/export`} query={{ ...form.values }} what="this tag" />}
      <ShareCard tag={tag} csrf={context.csrf} form={EMPTY_SHARE_FORM} {...page.sharing} />
    </>,
    { scripts: ['uplot.js', 'charts.js'] },
  );
}
