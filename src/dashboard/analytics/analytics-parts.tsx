import type { ComponentChildren } from 'preact';
import { Field } from '../components/forms.js';
import { DataTable, formatNumber, withQuery } from '../components/table.js';

/** What the overview and a tag's analytics share: the period form, figures, charts, bar lists, downloads. */

export type Granularity = 'hour' | 'day' | 'week' | 'month';
export const GRANULARITIES: readonly Granularity[] = ['hour', 'day', 'week', 'month'];

/** The period as the form shows it: first and last day, both included (the API's end is exclusive). */
export interface PeriodValues {
  from: string;
  to: string;
}

/** The period form's state: the values typed, and an error per field when they were refused. */
export interface PeriodForm {
  values: PeriodValues;
  errors: Record<string, string>;
}

const DAY_MS = 86_400_000;
export const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** "Nov 1, 2026" */
export function longDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric', year: 'numeric' });
}

/** A period the service answered for (end exclusive), in words; its days are those of ZoneNote's zone. */
export function describePeriod(period: { start: string; end: string }): string {
  const last = addDays(period.end, -1);
  return last === period.start ? longDay(last) : `${longDay(period.start)} – ${longDay(last)}`;
}

/** Days in a period (end exclusive). */
const daysIn = (period: { start: string; end: string }) => Math.round((Date.parse(period.end) - Date.parse(period.start)) / DAY_MS);

/** Which zone a report's days and hours are in, and where to choose another. */
export function ZoneNote({ zone }: { zone: string }) {
  return (
    <p class="zone-note muted">
      {`Times in ${zone} · `}
      <a href="/dashboard/account#time-zone-heading">
        change<span class="visually-hidden"> time zone</span>
      </a>
    </p>
  );
}

/** Links that fill the period form with the last N days up to today. */
const QUICK_RANGES = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '12 months' },
] as const;

/**
 * The period form (a GET: its address can be bookmarked and shared), with quick ranges. `keep`
 * holds parameters the form carries along, as hidden fields.
 */
export function PeriodPicker({
  path,
  form,
  today,
  keep = {},
}: {
  path: string;
  form: PeriodForm;
  today: string;
  keep?: Record<string, string>;
}) {
  const current = `${form.values.from}|${form.values.to}`;
  return (
    <div class="period">
      <form method="get" action={path} class="period-form" aria-label="Period">
        {Object.entries(keep).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Field name="from" label="From" type="date" autocomplete="off" value={form.values.from} error={form.errors.from} />
        <Field name="to" label="To" type="date" autocomplete="off" value={form.values.to} error={form.errors.to} />
        <button type="submit" class="button button-secondary">
          Apply
        </button>
      </form>
      <nav class="segmented" aria-label="Quick periods">
        {QUICK_RANGES.map(({ days, label }) => {
          const from = addDays(today, 1 - days);
          return (
            <a
              key={days}
              href={withQuery(path, { ...keep, from, to: today })}
              aria-current={current === `${from}|${today}` ? 'true' : undefined}
            >
              {label}
            </a>
          );
        })}
      </nav>
    </div>
  );
}

/** A report's comparison (compare=previous): the period before, and each figure's change in per cent. */
export interface Comparison<K extends string> {
  period: { start: string; end: string };
  change: Record<K, number | null>;
}

/** A report's comparison, when it was asked with compare=previous. */
export function comparisonOf<K extends string>(report: {
  previous?: { period: { start: string; end: string } };
  change?: Record<K, number | null>;
}): Comparison<K> | undefined {
  return report.previous && report.change && { period: report.previous.period, change: report.change };
}

/** "the previous 7 days", "the previous day": the period a change is measured against. */
function previousWords(period: { start: string; end: string }): string {
  const days = daysIn(period);
  return days === 1 ? 'the previous day' : `the previous ${formatNumber(days)} days`;
}

/** "Views" → "views"; "QR scans" stays as it is. */
const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

const percent = (change: number) => Math.abs(change).toLocaleString('en-US', { maximumFractionDigits: 1 });

/**
 * A figure's change against the previous period, in an arrow and words as well as a colour (never
 * colour alone), read aloud as "up 12 per cent". No change to speak of when the previous figure
 * was 0 (the API's null): a dash, saying so.
 */
export function Delta({ change, previous, none }: { change: number | null; previous: { start: string; end: string }; none: string }) {
  const against = previousWords(previous);
  if (daysIn(previous) === 0) return <span class="delta muted">— nothing kept from before this period</span>;
  if (change === null) return <span class="delta muted">{`— ${none} in ${against}`}</span>;
  const [kind, arrow, word] = change > 0 ? ['up', '▲', 'up'] : change < 0 ? ['down', '▼', 'down'] : ['same', '=', 'no change,'];
  return (
    <span class={`delta delta-${kind}`}>
      <span aria-hidden="true">{`${arrow} ${percent(change)} %`}</span>
      <span class="visually-hidden">{`${word} ${percent(change)} per cent`}</span>
      <span class="delta-against">{` vs ${against}`}</span>
    </span>
  );
}

interface StatItem {
  key: string;
  label: ComponentChildren;
  value: string;
  /** The figure's change against the previous period, under it. */
  delta?: ComponentChildren;
}

/** Headline figures; each `dd` carries data-stat (its key) so it can be found without its wording. */
export function Stats({ items }: { items: readonly StatItem[] }) {
  return (
    <dl class="stats">
      {items.map((item) => (
        <div key={item.key} class="stat">
          <dt>{item.label}</dt>
          <dd data-stat={item.key}>{item.value}</dd>
          {item.delta && (
            <dd class="stat-delta" data-change={item.key}>
              {item.delta}
            </dd>
          )}
        </div>
      ))}
    </dl>
  );
}

/** A card of headline figures: `values` by key, shown in the order and with the labels of `labels`; `children` under them. */
export function StatsCard<K extends string>({
  heading,
  labels,
  values,
  compared,
  children,
}: {
  heading: string;
  labels: ReadonlyArray<readonly [K, string]>;
  values: Record<K, string | number>;
  /** Each figure's change against the period before, shown beside it. */
  compared?: Comparison<K>;
  children?: ComponentChildren;
}) {
  const id = `${heading.toLowerCase()}-heading`;
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id} class="visually-hidden">
        {heading}
      </h2>
      <Stats
        items={labels.map(([key, label]) => {
          const value: string | number = values[key];
          return {
            key,
            label,
            value: typeof value === 'number' ? formatNumber(value) : value,
            delta: compared && <Delta change={compared.change[key]} previous={compared.period} none={`no ${lowerFirst(label)}`} />,
          };
        })}
      />
      {children}
    </section>
  );
}

/** Bot requests, under the human figures and smaller: they are never among the views. */
export function BotRequests({ count }: { count: number }) {
  return (
    <p class="stats-aside muted">
      {'Bot requests: '}
      <span data-stat="bot_views">{formatNumber(count)}</span>
      {' (crawlers and link previews, not counted as views)'}
    </p>
  );
}

export interface ChartData {
  /** How the points are spaced: the x axis and the table format their labels by it. */
  granularity: Granularity;
  /** Bucket keys as the API gives them: YYYY-MM-DD, or YYYY-MM-DDTHH:00:00Z for hours. */
  dates: readonly string[];
  series: ReadonlyArray<{ label: string; values: readonly number[] }>;
}

/**
 * A bucket key as a table row heading: "2026-11-25 14:00", "Week of 2026-11-23", "November 2026".
 * Hours are the local time of the report's zone (their key carries its offset; ZoneNote names it).
 */
function bucketLabel(date: string, granularity: Granularity): string {
  switch (granularity) {
    case 'hour':
      return `${date.slice(0, 10)} ${date.slice(11, 16)}`;
    case 'day':
      return date;
    case 'week':
      return `Week of ${date}`;
    case 'month':
      return new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', month: 'long', year: 'numeric' });
  }
}

/**
 * A line chart drawn by charts.js (uPlot) from its data-chart attribute (JSON: the CSP runs no
 * inline script, and an attribute is never run), with the same numbers as a table under a
 * disclosure: readable without scripts and by assistive technology. The buckets' labels go with
 * the data, so the chart's tooltip names a bucket as the table does.
 */
export function Chart({ id, title, data, children }: { id: string; title: string; data: ChartData; children?: ComponentChildren }) {
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <div class="chart-head">
        <figcaption id={`${id}-title`} class="chart-title">
          {title}
        </figcaption>
        {children}
      </div>
      <div
        class="chart-plot"
        id={id}
        data-chart={JSON.stringify({ ...data, labels: data.dates.map((date) => bucketLabel(date, data.granularity)) })}
        aria-hidden="true"
      ></div>
      {/* Open until charts.js has drawn the chart: without scripts the table is the chart. */}
      <details class="chart-table" open>
        <summary>Show as a table</summary>
        <DataTable
          label={`${title}, as a table`}
          headings={[data.granularity === 'hour' ? 'Hour' : 'Date', ...data.series.map((s) => s.label)]}
        >
          {data.dates.map((date, i) => (
            <tr key={date}>
              <th scope="row" data-label="Date">
                {bucketLabel(date, data.granularity)}
              </th>
              {data.series.map((s) => (
                <td key={s.label} data-label={s.label}>
                  {formatNumber(s.values[i]!)}
                </td>
              ))}
            </tr>
          ))}
        </DataTable>
      </details>
    </figure>
  );
}

/** A horizontal bar as SVG (its width is an attribute, not an inline style the CSP would refuse). */
function Bar({ share }: { share: number }) {
  return (
    <svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
      <rect class="bar-track" width="100" height="8" rx="2" />
      <rect class="bar-fill" width={Math.max(share * 100, share > 0 ? 1 : 0).toFixed(2)} height="8" rx="2" />
    </svg>
  );
}

/** Values by count, largest first, each with its share of `total` as a bar and a percentage. */
export function BarList({
  label,
  rows,
  total,
  empty = 'No views in this period.',
}: {
  label: string;
  rows: ReadonlyArray<{ key: string; name: ComponentChildren; views: number }>;
  total: number;
  empty?: string;
}) {
  if (total === 0) return <p class="muted">{empty}</p>;
  return (
    <table class="bar-list">
      <thead class="visually-hidden">
        <tr>
          <th scope="col">{label}</th>
          <th scope="col">Views</th>
          <th scope="col">Share</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const share = total > 0 ? row.views / total : 0;
          return (
            <tr key={row.key}>
              <th scope="row">
                <span class="bar-name">{row.name}</span>
                <Bar share={share} />
              </th>
              <td class="bar-views">{formatNumber(row.views)}</td>
              <td class="bar-share muted">{`${Math.round(share * 100)}%`}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A breakdown's value in words: the service sums the rest under `other` and views without a value under `unknown`. */
export function valueName(value: string, unknown = 'Unknown'): string {
  return value === 'other' ? 'Other' : value === 'unknown' ? unknown : value;
}

/** Largest first (ties by name); `other` then `unknown` last, whatever their counts. */
export function ranked(counts: Record<string, number>): Array<[string, number]> {
  const last = (key: string) => (key === 'other' ? 1 : key === 'unknown' ? 2 : 0);
  return Object.entries(counts).sort(([a, x], [b, y]) => last(a) - last(b) || y - x || a.localeCompare(b));
}

/** A breakdown card's content: its heading, the column's name and its rows. */
export interface Breakdown {
  /** Names the card (its heading's id). */
  id: string;
  heading: string;
  label: string;
  rows: ReadonlyArray<{ key: string; name: ComponentChildren; views: number }>;
  /** Said instead of the table when the period has no view with a value (only `unknown`), and what to do. */
  whenNone?: ComponentChildren;
}

/** Referring hosts: views from no other site (`direct`) as "Direct / none". */
export function referrerRows(counts: Record<string, number>): Breakdown['rows'] {
  return ranked(counts).map(([host, views]) => ({ key: host, name: host === 'direct' ? 'Direct / none' : valueName(host), views }));
}

/** A UTM parameter's values: views whose address had none as "None". */
export function utmRows(counts: Record<string, number>): Breakdown['rows'] {
  return ranked(counts).map(([value, views]) => ({ key: value, name: valueName(value, 'None'), views }));
}

/** How to make a UTM breakdown say something: what to add to the address shared. */
export function utmHint(parameter: string, example: string): ComponentChildren {
  return (
    <>
      {'No view in this period came through an address with '}
      <code>{parameter}</code>
      {'. Add '}
      <code>{`?${parameter}=…`}</code>
      {` to the address you share (for example `}
      <code>{`?${parameter}=${example}`}</code>
      {'), and its views are counted here.'}
    </>
  );
}

/** Breakdown cards side by side, each a bar list of its values' share of `total` views. */
export function Breakdowns({ lists, total }: { lists: readonly Breakdown[]; total: number }) {
  return (
    <div class="grid breakdowns">
      {lists.map(({ id, heading, label, rows, whenNone }) => (
        <section key={id} class="card" aria-labelledby={`${id}-heading`}>
          <h2 id={`${id}-heading`}>{heading}</h2>
          {whenNone && total > 0 && rows.every((row) => row.key === 'unknown') ? (
            <p class="muted">{whenNone}</p>
          ) : (
            <BarList label={label} total={total} rows={rows} />
          )}
        </section>
      ))}
    </div>
  );
}

/** CSV and JSON download links for the period. */
export function Downloads({ path, query, what }: { path: string; query: Record<string, string>; what: string }) {
  return (
    <section class="card" aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p class="muted">{`Per day views, unique visitors, QR scans and direct visits of ${what}, for the period shown.`}</p>
      <div class="actions">
        <a class="button button-quiet" href={withQuery(path, { ...query, format: 'csv' })} download>
          Download CSV
        </a>
        <a class="button button-quiet" href={withQuery(path, { ...query, format: 'json' })} download>
          Download JSON
        </a>
      </div>
    </section>
  );
}
