/**
 * The analytics pages' styles (appended to dashboard.css): the period picker, headline figures,
 * charts (uPlot's own stylesheet comes from its package, after this), bar lists and live figures.
 * Chart colours are variables here so charts.js reads the scheme's palette.
 */
export const ANALYTICS_CSS = `
:root { --chart-1: #0b57d0; --chart-2: #e8710a; --chart-fill: rgb(11 87 208 / 9%); }
@media (prefers-color-scheme: dark) { :root { --chart-1: #8ab4f8; --chart-2: #fcad70; --chart-fill: rgb(138 180 248 / 12%); } }

.period { display: flex; flex-wrap: wrap; align-items: flex-end; justify-content: space-between; gap: 0.75rem 1.5rem; margin: 0 0 1.25rem; }
.period-form { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 0.75rem; margin: 0; }
.period-form .field { flex: 1 1 9.5rem; }
.period-form .field label { font-size: 0.85rem; }
.period-form .field input { min-height: 2.5rem; width: 100%; min-width: 0; }
.period-form .button { min-height: 2.5rem; margin-top: 1.6rem; }
.segmented { display: inline-flex; max-width: 100%; overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; background: var(--surface); }
.segmented a { padding: 0.45rem 0.8rem; color: var(--muted); text-decoration: none; font-weight: 500; font-size: 0.9rem; white-space: nowrap;
  border-left: 1px solid var(--line); }
.segmented a:first-child { border-left: 0; }
.segmented a:hover { color: var(--fg); background: var(--bg); }
.segmented a[aria-current] { color: var(--accent); background: var(--accent-soft); font-weight: 600; }

.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 7.5rem), 1fr)); gap: 1rem 1.5rem; margin: 0; }
.stat dt { color: var(--muted); font-size: 0.85rem; font-weight: 500; display: flex; align-items: center; }
.stat dd { margin: 0.15rem 0 0; font-size: 1.75rem; font-weight: 700; letter-spacing: -0.01em; font-variant-numeric: tabular-nums;
  overflow-wrap: anywhere; }
.pulse { width: 0.55rem; height: 0.55rem; border-radius: 50%; background: var(--success); margin-right: 0.4rem; animation: pulse 2s ease-in-out infinite; }
@keyframes pulse { 50% { opacity: 0.35; } }
@media (prefers-reduced-motion: reduce) { .pulse { animation: none; } }

.chart { margin: 0; min-width: 0; }
.chart-head { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.75rem 1rem; margin-bottom: 1rem; }
.chart-title { font-weight: 600; font-size: 1.1rem; }
.chart-plot { display: none; overflow: hidden; }
.chart-plot.chart-drawn { display: block; }
.chart-plot .u-legend { color: var(--fg); font-size: 0.85rem; margin-top: 0.5rem; }
.chart-plot .u-legend .u-marker { border-radius: 3px; }
.chart-plot .u-cursor-pt { border-color: var(--surface); }
.chart-table { margin-top: 0.75rem; }
.chart-table summary { cursor: pointer; color: var(--accent); font-size: 0.9rem; font-weight: 500; }
.chart-table[open] summary { margin-bottom: 0.5rem; }
.chart-table .table-wrap { max-height: 26rem; overflow: auto; }

.bar-list { width: 100%; border-collapse: collapse; font-size: 0.9rem; }
.bar-list th, .bar-list td { padding: 0.45rem 0; border-top: 1px solid var(--line); vertical-align: bottom; }
.bar-list tbody tr:first-child > * { border-top: 0; }
.bar-list th { text-align: left; font-weight: 500; width: 100%; padding-right: 1rem; }
.bar-name { display: block; overflow-wrap: anywhere; margin-bottom: 0.3rem; }
.bar { display: block; width: 100%; height: 0.45rem; }
.bar-track { fill: var(--bg); }
.bar-fill { fill: var(--chart-1); }
.bar-views { text-align: right; font-weight: 600; font-variant-numeric: tabular-nums; white-space: nowrap; padding-right: 0.75rem; }
.bar-share { text-align: right; font-variant-numeric: tabular-nums; min-width: 3rem; }
.breakdowns { align-items: stretch; }
.breakdowns .card h2 { font-size: 1.05rem; }
@media (max-width: 40rem) {
  .period-form .button { margin-top: 0; }
  .period .segmented { width: 100%; }
  .period .segmented a { flex: 1 1 auto; text-align: center; padding: 0.45rem 0.5rem; }
  .stats { gap: 1rem; }
  .stat dd { font-size: 1.5rem; }
}
.data-table .cell-wrap { overflow-wrap: anywhere; min-width: 8rem; }
`;
