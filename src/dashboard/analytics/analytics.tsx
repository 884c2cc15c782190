import type { SignedInUser } from '../../features/accounts/index.js';
import { Alert } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import {
  BarList,
  Breakdowns,
  Chart,
  comparisonOf,
  describePeriod,
  Downloads,
  PeriodPicker,
  referrerRows,
  StatsCard,
  BotRequests,
  utmHint,
  utmRows,
  ZoneNote,
  type PeriodForm,
  type PeriodValues,
} from './analytics-parts.js';
import { withQuery } from '../components/table.js';
import { tagPath } from '../tags/tag-header.js';

type Totals = { views: number; unique_views: number; qr_scans: number; tags_created: number; files_uploaded: number; bot_views: number };

/** What GET /v1/analytics/overview answers (the service's result), asked with compare=previous. */
export interface OverviewReport {
  period: { start: string; end: string };
  totals: Totals;
  previous?: { period: { start: string; end: string } };
  change?: Record<keyof Totals, number | null>;
  top_tags: ReadonlyArray<{ id: string; title: string; views: number }>;
  by_day: ReadonlyArray<{ date: string; views: number; scans: number }>;
  by_referrer: Record<string, number>;
  by_utm_source: Record<string, number>;
}

export interface OverviewPage {
  form: PeriodForm;
  today: string;
  /** The time zone the report's days are in (the reader's). */
  zone: string;
  /** Absent when the period was refused (the form shows why). */
  report?: OverviewReport;
}

export const OVERVIEW_PATH = '/dashboard/analytics';

function OverviewReportCards({ report, period }: { report: OverviewReport; period: PeriodValues }) {
  const { totals } = report;
  const tagQuery = { from: period.from, to: period.to };
  return (
    <>
      <StatsCard
        heading="Totals"
        values={totals}
        compared={comparisonOf(report)}
        labels={[
          ['views', 'Views'],
          ['unique_views', 'Unique visitors'],
          ['qr_scans', 'QR scans'],
          ['tags_created', 'Tags created'],
          ['files_uploaded', 'Files uploaded'],
        ]}
      >
        <BotRequests count={totals.bot_views} />
      </StatsCard>
      <section class="card" aria-labelledby="by-day-title">
        <Chart
          id="by-day"
          title="Views and QR scans by day"
          data={{
            granularity: 'day',
            dates: report.by_day.map((d) => d.date),
            series: [
              { label: 'Views', values: report.by_day.map((d) => d.views) },
              { label: 'QR scans', values: report.by_day.map((d) => d.scans) },
            ],
          }}
        />
      </section>
      <section class="card" aria-labelledby="top-heading">
        <h2 id="top-heading">Top tags</h2>
        <BarList
          label="Tag"
          total={totals.views}
          empty="No tag was viewed in this period."
          rows={report.top_tags.map((tag) => ({
            key: tag.id,
            name: <a href={withQuery(tagPath(tag, 'analytics'), tagQuery)}>{tag.title}</a>,
            views: tag.views,
          }))}
        />
      </section>
      <Breakdowns
        total={totals.views}
        lists={[
          { id: 'referrer', heading: 'Referrers', label: 'Referrer', rows: referrerRows(report.by_referrer) },
          {
            id: 'utm-source',
            heading: 'UTM sources',
            label: 'utm_source',
            rows: utmRows(report.by_utm_source),
            whenNone: utmHint('utm_source', 'newsletter'),
          },
        ]}
      />
    </>
  );
}

/** /dashboard/analytics: account-wide totals, views and scans by day, top tags and the export. */
export function renderOverview(context: PageContext & { user: SignedInUser }, page: OverviewPage): string {
  const { report, form } = page;
  const workspace = context.user.workspace;
  const whose = `${workspace?.organization ? `All of ${workspace.organization.name}’s tags` : 'All your tags'}${
    workspace?.environment === 'test' ? ' (test data)' : ''
  }`;
  return renderAppPage(
    context,
    'Analytics',
    <>
      <div class="page-head">
        <div>
          <h1>Analytics</h1>
          <p class="lead">{report ? `${whose}, ${describePeriod(report.period)}.` : `${whose}.`}</p>
          <ZoneNote zone={page.zone} />
        </div>
      </div>
      <PeriodPicker path={OVERVIEW_PATH} form={form} today={page.today} />
      {!report && <Alert kind="error">No report for this period: correct the dates above.</Alert>}
      {report && <OverviewReportCards report={report} period={form.values} />}
      {report && <Downloads path={`${OVERVIEW_PATH}/export`} query={{ ...form.values }} what="every tag" />}
    </>,
    { scripts: ['uplot.js', 'charts.js'] },
  );
}
