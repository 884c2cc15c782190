import escapeHtml from 'escape-html';
import { document } from '../features/pages/index.js';
import type { sharedReport, SharedPeriod } from '../features/shares/index.js';

/**
 * The HTML of a shared report, /stats/{token}: the tag's title, the summary, a chart of views
 * and visitors drawn as SVG on the server (the public pages' CSP runs no inline script or
 * style, and the page needs none), and the report's breakdowns as tables. Read-only; nothing
 * links away from it.
 */

export type SharedReport = Awaited<ReturnType<typeof sharedReport>>;

export interface StatsPage {
  title: string;
  /** The page's own address, where the period links and the dates form go. */
  path: string;
  /** The period asked for: one of the presets, or the dates in the form. */
  chosen: { period: SharedPeriod } | { from: string; to: string };
  /** Absent when the dates were refused (`problem` says why). */
  report?: SharedReport;
  problem?: string;
}

const PERIOD_LABELS: Record<SharedPeriod, string> = { '7d': 'Last 7 days', '30d': 'Last 30 days', '12m': 'Last 12 months' };

const numbers = new Intl.NumberFormat('en-US');
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
const dayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const shortDayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const monthFormat = new Intl.DateTimeFormat('en-GB', { month: 'short', year: 'numeric', timeZone: 'UTC' });

const dayOf = (day: string) => new Date(`${day}T00:00:00Z`);
const DAY_MS = 86_400_000;

/** "other" and "unknown", which the report sums the rest under, in words. */
function valueName(value: string): string {
  return value === 'other' ? 'Other' : value === 'unknown' ? 'Unknown' : value;
}

function countryName(code: string): string {
  if (code === 'other' || code === 'unknown') return valueName(code);
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

type Rows = Array<[name: string, views: number]>;
const counts = (value: unknown): Rows => Object.entries(value as Record<string, number>);
const named = (name: (value: string) => string) => (value: unknown) =>
  counts(value).map(([key, views]): [string, number] => [name(key), views]);

interface City {
  city: string;
  country: string | null;
  views: number;
}

/**
 * Every breakdown the page shows, in order: a heading, the report's key and its rows. A key the
 * report does not have is left out, so a breakdown the report gains appears by adding its line.
 */
const BREAKDOWNS: ReadonlyArray<{ heading: string; column: string; key: string; rows: (value: unknown) => Rows }> = [
  { heading: 'Devices', column: 'Device', key: 'by_device', rows: named((device) => device[0]!.toUpperCase() + device.slice(1)) },
  { heading: 'Countries', column: 'Country', key: 'by_country', rows: named(countryName) },
  {
    heading: 'Cities',
    column: 'City',
    key: 'by_city',
    rows: (value) =>
      (value as City[]).map((c): [string, number] => [c.country ? `${c.city}, ${countryName(c.country)}` : valueName(c.city), c.views]),
  },
  { heading: 'Referrers', column: 'Referrer', key: 'by_referrer', rows: named((host) => (host === 'direct' ? 'Direct' : valueName(host))) },
  { heading: 'Browsers', column: 'Browser', key: 'by_browser', rows: named(valueName) },
  { heading: 'Operating systems', column: 'Operating system', key: 'by_os', rows: named(valueName) },
  { heading: 'Campaign sources', column: 'utm_source', key: 'by_utm_source', rows: named(valueName) },
  { heading: 'Campaign media', column: 'utm_medium', key: 'by_utm_medium', rows: named(valueName) },
  { heading: 'Campaigns', column: 'utm_campaign', key: 'by_utm_campaign', rows: named(valueName) },
];

/** Largest first; the rest summed (`Other`) and the views without a value (`Unknown`) last. */
function ranked(rows: Rows): Rows {
  const last = (name: string) => (name === 'Other' ? 1 : name === 'Unknown' ? 2 : 0);
  return [...rows].sort(([a, x], [b, y]) => last(a) - last(b) || y - x || a.localeCompare(b));
}

function describePeriod(period: { start: string; end: string }): string {
  const last = new Date(dayOf(period.end).getTime() - DAY_MS);
  const first = dayOf(period.start);
  return first.getTime() === last.getTime() ? dayFormat.format(first) : `${dayFormat.format(first)} – ${dayFormat.format(last)}`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

function summary(report: SharedReport): string {
  const s = report.summary;
  const figures: Array<[string, string]> = [
    ['Views', numbers.format(s.total_views)],
    ['Unique visitors', numbers.format(s.unique_views)],
    ['QR scans', numbers.format(s.qr_scans)],
    ['Direct visits', numbers.format(s.direct_visits)],
    ['Average time', duration(s.average_time_seconds)],
  ];
  return (
    '<section aria-labelledby="summary-heading"><h2 id="summary-heading" class="visually-hidden">Summary</h2><dl class="figures">' +
    figures.map(([label, value]) => `<div class="figure"><dt>${label}</dt><dd>${value}</dd></div>`).join('') +
    '</dl></section>'
  );
}

/** A bucket's name: a day, or a month for the 12 months (its key is the month's first day). */
const bucketName = (key: string, byMonth: boolean) => (byMonth ? monthFormat : dayFormat).format(dayOf(key));

// The chart's drawing area, in the SVG's own units; the SVG scales to the page's width.
const WIDTH = 640;
const HEIGHT = 220;
const TOP = 4;
const BOTTOM = 4;
const LEFT = 8;

/** A maximum for the axis that reads well: 1, 2 or 5 times a power of ten, at least 1. */
function niceMax(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].map((step) => step * power).find((max) => max >= value) ?? 10 * power) as number;
}

/**
 * Views (bars) and unique visitors (narrower bars inside them) per bucket, each bar titled with
 * its figures (the browser shows the title on hover), and the same figures as a table for
 * readers of text.
 */
function chart(report: SharedReport, byMonth: boolean): string {
  const points = report.timeseries;
  const max = niceMax(Math.max(0, ...points.map((p) => p.views)));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT * 2) / Math.max(1, points.length);
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  const fmt = (n: number) => n.toFixed(1);
  const bars = points
    .map((p, i) => {
      const x = LEFT + i * slot;
      const title = `${bucketName(p.date, byMonth)}: ${numbers.format(p.views)} views, ${numbers.format(p.unique)} unique visitors`;
      return (
        `<g><title>${escapeHtml(title)}</title>` +
        `<rect class="bar-views" x="${fmt(x + slot * 0.1)}" y="${fmt(y(p.views))}" width="${fmt(slot * 0.8)}" height="${fmt(TOP + plotHeight - y(p.views))}"></rect>` +
        `<rect class="bar-visitors" x="${fmt(x + slot * 0.3)}" y="${fmt(y(p.unique))}" width="${fmt(slot * 0.4)}" height="${fmt(TOP + plotHeight - y(p.unique))}"></rect></g>`
      );
    })
    .join('');
  // Labels are text of the page, not of the SVG, so they keep their size however wide the chart is drawn.
  const axisName = (point: { date: string } | undefined) =>
    point ? escapeHtml(byMonth ? monthFormat.format(dayOf(point.date)) : shortDayFormat.format(dayOf(point.date))) : '';
  const axis = `<div class="chart-axis" aria-hidden="true"><span>${axisName(points[0])}</span><span>${points.length > 1 ? axisName(points.at(-1)) : ''}</span></div>`;
  const unit = byMonth ? 'month' : 'day';
  const rows = points
    .map(
      (p) =>
        `<tr><th scope="row">${escapeHtml(bucketName(p.date, byMonth))}</th><td>${numbers.format(p.views)}</td><td>${numbers.format(p.unique)}</td></tr>`,
    )
    .join('');
  return (
    `<section class="panel" aria-labelledby="chart-heading"><h2 id="chart-heading">Views and unique visitors by ${unit}</h2>` +
    '<p class="legend"><span class="key key-views"></span>Views <span class="key key-visitors"></span>Unique visitors</p>' +
    `<p class="chart-scale" aria-hidden="true">${numbers.format(max)}</p>` +
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-heading" focusable="false">` +
    `<line class="grid" x1="${LEFT}" x2="${WIDTH - LEFT}" y1="${TOP}" y2="${TOP}"></line>` +
    `<line class="baseline" x1="${LEFT}" x2="${WIDTH - LEFT}" y1="${TOP + plotHeight}" y2="${TOP + plotHeight}"></line>` +
    `${bars}</svg>${axis}` +
    `<details><summary>The chart’s figures by ${unit}</summary><div class="table-scroll" tabindex="0" role="region" aria-label="The chart’s figures">` +
    `<table><thead><tr><th scope="col">${byMonth ? 'Month' : 'Day'}</th><th scope="col">Views</th><th scope="col">Unique visitors</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div></details></section>`
  );
}

function breakdowns(report: SharedReport): string {
  const fields = report as unknown as Record<string, unknown>;
  const total = report.summary.total_views;
  const sections = BREAKDOWNS.filter(({ key }) => fields[key] !== undefined).map(({ heading, column, key, rows }) => {
    const id = `${key}-heading`;
    const listed = ranked(rows(fields[key])).filter(([, views]) => views > 0);
    const body =
      listed.length === 0
        ? '<p class="muted">No views in this period.</p>'
        : `<table class="breakdown"><thead><tr><th scope="col">${escapeHtml(column)}</th><th scope="col">Views</th><th scope="col">Share</th></tr></thead><tbody>` +
          listed
            .map(
              ([name, views]) =>
                `<tr><th scope="row">${escapeHtml(name)}</th><td>${numbers.format(views)}</td><td>${total > 0 ? `${Math.round((views / total) * 100)}%` : '—'}</td></tr>`,
            )
            .join('') +
          '</tbody></table>';
    return `<section class="panel" aria-labelledby="${id}"><h2 id="${id}">${heading}</h2>${body}</section>`;
  });
  return `<div class="breakdowns">${sections.join('')}</div>`;
}

function periodChooser(page: StatsPage): string {
  const links = (Object.keys(PERIOD_LABELS) as SharedPeriod[])
    .map((period) => {
      const current = 'period' in page.chosen && page.chosen.period === period ? ' aria-current="page"' : '';
      return `<a href="${escapeHtml(`${page.path}?period=${period}`)}"${current}>${PERIOD_LABELS[period]}</a>`;
    })
    .join('');
  const dates =
    'from' in page.chosen ? page.chosen : page.report && { from: page.report.period.start, to: lastDay(page.report.period.end) };
  const problem = page.problem ? `<p class="form-error" id="dates-error" role="alert">${escapeHtml(page.problem)}</p>` : '';
  const invalid = page.problem ? ' aria-invalid="true" aria-describedby="dates-error"' : '';
  return (
    `<nav class="periods" aria-label="Period">${links}</nav>` +
    `<form method="get" action="${escapeHtml(page.path)}" class="dates">` +
    `<div><label for="from">From</label><input id="from" name="from" type="date" required value="${escapeHtml(dates?.from ?? '')}"${invalid}></div>` +
    `<div><label for="to">To</label><input id="to" name="to" type="date" required value="${escapeHtml(dates?.to ?? '')}"${invalid}></div>` +
    `<button type="submit" class="button">Show</button></form>${problem}`
  );
}

const lastDay = (end: string) => new Date(dayOf(end).getTime() - DAY_MS).toISOString().slice(0, 10);

export function renderStatsPage(page: StatsPage): string {
  const { report } = page;
  const byMonth = report?.granularity === 'month';
  const body =
    '<div class="stats">' +
    `<header class="stats-header"><p class="kicker">Shared report</p><h1>${escapeHtml(page.title)}</h1>` +
    (report ? `<p class="muted">Views ${escapeHtml(describePeriod(report.period))} (UTC)</p>` : '') +
    '</header>' +
    periodChooser(page) +
    (report ? summary(report) + chart(report, byMonth) + breakdowns(report) : '') +
    '<p class="muted footnote">A read-only report shared by the page’s owner.</p></div>';
  return document(
    `${page.title} · Shared report`,
    body,
    '<meta name="robots" content="noindex"><link rel="stylesheet" href="/assets/stats.css">',
  );
}
