/** The webhook pages' styles, appended to dashboard.css (assets/index.ts); built on its variables. */
export const WEBHOOKS_CSS = `
.page-head { display: flex; flex-wrap: wrap; align-items: flex-start; justify-content: space-between; gap: 0.75rem 1.5rem; margin-bottom: 1rem; }
.page-head > div:first-child { min-width: 0; flex: 1 1 20rem; }
.page-head .lead { margin-bottom: 0; }
.page-head > .button-primary { width: auto; margin-top: 0.25rem; }
.page-head h1 { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.75rem; overflow-wrap: anywhere; margin-bottom: 0.25rem; }
.page-head h1 .state { font-size: 0.9rem; }
.webhook-address { margin: 0; color: var(--muted); overflow-wrap: anywhere; }
h2 .count { font-weight: 400; font-size: 0.9rem; margin-left: 0.35rem; }
.empty { padding: 1.5rem 0 0.5rem; text-align: center; color: var(--muted); }
.webhook-url { white-space: normal !important; overflow-wrap: anywhere; }
.last-delivery { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.6rem; }

.status { display: inline-block; font-size: 0.75rem; font-weight: 600; padding: 0.1rem 0.55rem; border-radius: 999px; border: 1px solid; white-space: nowrap; }
.status-success { color: var(--success); background: var(--success-soft); border-color: color-mix(in srgb, var(--success) 35%, transparent); }
.status-failed { color: var(--error); background: var(--error-soft); border-color: color-mix(in srgb, var(--error) 35%, transparent); }
.status-pending { color: var(--muted); background: var(--bg); border-color: var(--line); }
.http-code { font-weight: 600; }
.http-ok { color: var(--success); }
.http-bad { color: var(--error); }

.filter ul { display: flex; flex-wrap: wrap; gap: 0.25rem; list-style: none; margin: 0; padding: 0.2rem; border: 1px solid var(--line);
  border-radius: 9px; background: var(--bg); }
.filter a { display: block; padding: 0.25rem 0.75rem; border-radius: 6px; color: var(--muted); text-decoration: none; font-size: 0.9rem; font-weight: 500; }
.filter a:hover { color: var(--fg); }
.filter a[aria-current="true"] { background: var(--surface); color: var(--fg); box-shadow: var(--shadow); outline: 1px solid var(--line); }

.chips-end { justify-content: flex-end; }
.secret { flex-wrap: wrap; }
.secret pre { display: flex; align-items: center; min-height: 2.5rem; flex: 1 1 15rem; }
.secret pre code[hidden] { display: none; }
.secret-mask { letter-spacing: 0.05em; color: var(--muted); white-space: nowrap; overflow: hidden; }
.test-form { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0.75rem; }
.test-form .field { flex: 1 1 12rem; }
.test-form .button { min-height: 2.75rem; }
.test-result p { margin: 0 0 0.35rem; }
.test-result p:last-child { margin: 0; }
.test-error { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; overflow-wrap: anywhere; }

.header-rows { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.5rem; }
.header-rows:empty { display: none; }
.header-row { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr) auto; gap: 0.5rem; align-items: center; }
.header-row input { font: inherit; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; color: var(--fg);
  background: var(--surface); border: 1px solid var(--line); border-radius: 8px; padding: 0.5rem 0.75rem; min-height: 2.5rem; width: 100%; }
.header-row.field-invalid input { border-color: var(--error); }
.header-row .field-error { grid-column: 1 / -1; }
.checkbox-plain { font-family: inherit; font-size: 0.95rem; }

/* Retry is the one thing to do on a failed delivery's page. */
.retry .button { background: var(--accent); color: var(--accent-fg); border-color: transparent; padding: 0.5rem 1.25rem; min-height: 2.5rem; font-size: 1rem; }
.retry .button:hover { background: var(--accent); filter: brightness(1.08); }
.payload { max-height: 32rem; overflow: auto; white-space: pre !important; overflow-wrap: normal !important; }
.excerpt { margin: 0; padding: 0.5rem 0.75rem; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; font-size: 0.8rem;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 10rem; overflow: auto; }
.attempt-error { margin: 0 0 0.35rem; color: var(--error); font-size: 0.85rem; overflow-wrap: anywhere; }
.data-table td.cell-wide { min-width: 14rem; }
.data-table th .badge { margin-left: 0.4rem; }
@media (max-width: 40rem) {
  .header-row { grid-template-columns: minmax(0, 1fr) auto; }
  .header-row input[name="header_value"] { grid-column: 1; grid-row: 2; }
  .header-row .button { grid-row: 1 / span 2; grid-column: 2; align-self: center; }
  .page-head > .button-primary { width: 100%; }
  .card-head .filter { flex: 1 1 100%; }
  .filter ul { flex-wrap: nowrap; }
  .filter li { flex: 1 1 auto; }
  .filter a { padding: 0.25rem 0.5rem; text-align: center; }
  .data-table td.cell-wide { min-width: 0; }
  .payload-code { flex-direction: column-reverse; align-items: stretch; }
  .payload-code .copy { align-self: flex-end; }
}
`;
