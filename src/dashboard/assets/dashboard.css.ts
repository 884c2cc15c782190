/**
 * The dashboard's only stylesheet, served from /dashboard/assets/dashboard.css so the CSP can
 * forbid inline styles. The public page's palette and type (features/pages/page.css.ts), with
 * a dark scheme and visible focus everywhere.
 */
export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #f6f7f9; --surface: #ffffff; --muted: #5f6368; --line: #d9dce1;
  --accent: #0b57d0; --accent-fg: #ffffff; --accent-soft: #e8f0fe; --error: #b3261e; --error-soft: #fce8e6;
  --success: #146c2e; --success-soft: #e6f4ea; --focus: #0b57d0; --radius: 10px;
  --shadow: 0 1px 2px rgb(0 0 0 / 6%), 0 1px 8px rgb(0 0 0 / 4%); }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #121212; --surface: #1e1f21; --muted: #a8abb0;
  --line: #3c4043; --accent: #8ab4f8; --accent-fg: #0b1a33; --accent-soft: #1f2a3d; --error: #f28b82; --error-soft: #3b1f1d;
  --success: #81c995; --success-soft: #1b3022; --focus: #8ab4f8; --shadow: none; } }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); text-underline-offset: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 0 0 0.75rem; }
p { margin: 0 0 1rem; }
.skip-link { position: absolute; left: 0.75rem; top: -4rem; z-index: 10; background: var(--surface); color: var(--fg);
  padding: 0.5rem 0.9rem; border-radius: var(--radius); box-shadow: var(--shadow); border: 1px solid var(--line); }
.skip-link:focus { top: 0.75rem; }

.brand { display: inline-flex; align-items: center; gap: 0.55rem; font-weight: 700; font-size: 1.15rem; color: var(--fg);
  text-decoration: none; letter-spacing: -0.01em; }
.brand-mark { width: 1.5rem; height: 1.5rem; border-radius: 6px; background: var(--accent);
  box-shadow: inset 0 0 0 5px var(--accent), inset 0 0 0 8px var(--surface); }

.topbar { background: var(--surface); border-bottom: 1px solid var(--line); }
.topbar-inner { max-width: 90rem; margin: 0 auto; padding: 0.6rem 1.25rem; display: flex; align-items: center; gap: 1rem 1.25rem;
  flex-wrap: wrap; }
.nav { flex: 1 1 auto; }
.nav ul { list-style: none; display: flex; gap: 0.25rem; margin: 0; padding: 0; }
.nav a { display: block; white-space: nowrap; padding: 0.45rem 0.65rem; border-radius: 8px; color: var(--muted); text-decoration: none; font-weight: 500; }
.nav a:hover { color: var(--fg); background: var(--bg); }
.nav a[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
.account { display: flex; align-items: center; gap: 0.6rem; min-width: 0; }
.account-link { color: var(--muted); text-decoration: none; border-radius: 8px; padding: 0.3rem 0.5rem; min-width: 0; display: flex; }
.account-link:hover, .account-link[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
.account-short { display: none; font-size: 0.95rem; font-weight: 500; }
.account-email { font-size: 0.9rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 14rem; }
.sign-out { margin: 0; }
/* A card's heading with its actions on the same row. */
.card-head { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.75rem 1rem; margin-bottom: 1rem; }
.card-head h2 { margin: 0; }
.card-head .button { width: auto; margin: 0; }
.recent-list { list-style: none; margin: 0 0 1rem; padding: 0; }
.recent-list li { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 1rem; padding: 0.6rem 0; border-bottom: 1px solid var(--line); }
.recent-list li a { font-weight: 600; }
.recent-list code { font-size: 0.85rem; }
.recent-list .when { display: inline-flex; flex-direction: row; gap: 0.3rem; }
.workspace-bar { background: var(--surface); border-bottom: 1px solid var(--line); }
.workspace-bar-test { background: #fff4e0; border-bottom-color: #f0c36d; }
@media (prefers-color-scheme: dark) { .workspace-bar-test { background: #3a2a10; border-bottom-color: #6b4e1e; } }
.workspace-bar-inner { max-width: 90rem; margin: 0 auto; padding: 0.4rem 1.25rem; display: flex; align-items: center; gap: 0.5rem 1.25rem;
  flex-wrap: wrap; }
.workspace-switch { display: flex; align-items: center; gap: 0.5rem; margin: 0; }
.workspace-switch label { font-size: 0.85rem; color: var(--muted); font-weight: 500; }
.workspace-switch select { font: inherit; font-size: 0.9rem; padding: 0.25rem 0.5rem; border-radius: 8px; border: 1px solid var(--line);
  background: var(--surface); color: var(--fg); max-width: 18rem; }
.workspace-note { margin: 0; font-size: 0.85rem; font-weight: 500; }
.settings-transfer { margin-top: 1.5rem; padding-top: 1.25rem; border-top: 1px solid var(--line); }

.content { max-width: 90rem; margin: 0 auto; padding: 2rem 1.25rem 3rem; }
.grid { display: grid; gap: 1.25rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 22rem), 1fr)); align-items: start; }
.card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.5rem; box-shadow: var(--shadow); }
.card > :last-child { margin-bottom: 0; }
.facts { margin: 0 0 1rem; display: grid; gap: 0.6rem; }
.facts div { display: flex; justify-content: space-between; gap: 1rem; border-bottom: 1px solid var(--line); padding-bottom: 0.6rem; }
.facts div:last-child { border-bottom: 0; padding-bottom: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; text-align: right; overflow-wrap: anywhere; }

.badge { display: inline-block; font-size: 0.75rem; font-weight: 600; padding: 0.1rem 0.55rem; border-radius: 999px;
  background: var(--accent-soft); color: var(--accent); border: 1px solid color-mix(in srgb, var(--accent) 35%, transparent); }
.badge-free { background: transparent; color: var(--muted); border-color: var(--line); }

.code { display: flex; gap: 0.5rem; align-items: flex-start; margin: 0 0 1rem; }
.code pre { flex: 1 1 auto; min-width: 0; margin: 0; padding: 0.75rem 1rem; background: var(--bg); border: 1px solid var(--line);
  border-radius: 8px; font-size: 0.85rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.code .copy { flex: none; }

.solo { display: flex; min-height: 100vh; }
.solo-main { width: 100%; max-width: 26rem; margin: auto; padding: 2rem 1.25rem; }
.solo-brand { text-align: center; margin-bottom: 1.25rem; }
.solo-card { padding: 2rem 1.75rem; }
.lead { color: var(--muted); }
.switch { text-align: center; color: var(--muted); margin: 1.25rem 0 0; }

.stack { display: grid; gap: 1rem; }
.field { display: grid; gap: 0.35rem; }
.field label { font-weight: 600; font-size: 0.95rem; }
.field input { font: inherit; color: var(--fg); background: var(--surface); border: 1px solid var(--line); border-radius: 8px;
  padding: 0.6rem 0.75rem; min-height: 2.75rem; width: 100%; }
.field input:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; border-color: var(--focus); }
.field-invalid input { border-color: var(--error); }
.field-hint { margin: 0; color: var(--muted); font-size: 0.85rem; }
.field-error { margin: 0; color: var(--error); font-size: 0.9rem; font-weight: 500; }

.button { display: inline-flex; align-items: center; justify-content: center; font: inherit; font-weight: 600; border-radius: 8px;
  padding: 0.55rem 1rem; min-height: 2.5rem; cursor: pointer; text-decoration: none; border: 1px solid transparent; }
.button-primary { background: var(--accent); color: var(--accent-fg); width: 100%; min-height: 2.75rem; margin-top: 0.25rem; }
.button-primary:hover { filter: brightness(1.08); }
.button-secondary { background: var(--surface); color: var(--fg); border-color: var(--line); }
.button-quiet { background: transparent; color: var(--fg); border-color: var(--line); padding: 0.35rem 0.8rem; min-height: 2.25rem;
  font-size: 0.9rem; }
.button-quiet:hover { background: var(--bg); }
.content .stack .button-primary { width: auto; justify-self: start; }

.alert { border-radius: 8px; padding: 0.75rem 1rem; margin: 0 0 1rem; border-left: 4px solid; }
.alert-error { background: var(--error-soft); border-color: var(--error); }
.alert-success { background: var(--success-soft); border-color: var(--success); }

.muted { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.content > .card, .content > .grid { margin-bottom: 1.25rem; }
.grid-wide-first { grid-template-columns: minmax(0, 3fr) minmax(min(100%, 18rem), 2fr); }
.stack-cards { display: grid; gap: 1.25rem; }
.form-narrow { max-width: 46rem; }
.breadcrumb { margin: 0 0 0.25rem; font-size: 0.9rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85em; }
.card-once { border-color: var(--success); border-left-width: 4px; }
.card-once pre { font-size: 0.95rem; }

.table-wrap { overflow-x: auto; margin: 0 -0.25rem; padding: 0 0.25rem; }
.pager { display: flex; gap: 0.5rem; align-items: center; justify-content: flex-end; flex-wrap: wrap; margin-top: 1rem; }
.pager .muted { margin-right: auto; }
.data-table { width: 100%; border-collapse: collapse; font-size: 0.9rem; }
.data-table th, .data-table td { text-align: left; vertical-align: top; padding: 0.6rem 0.4rem; border-bottom: 1px solid var(--line); }
.data-table thead th { color: var(--muted); font-weight: 600; font-size: 0.8rem; white-space: nowrap; }
.data-table tbody th { font-weight: 600; overflow-wrap: break-word; min-width: 6rem; }
.data-table tbody tr:last-child > * { border-bottom: 0; }
.data-table code { white-space: nowrap; }
.when { display: inline-flex; flex-direction: column; white-space: nowrap; }
.data-table .chips { min-width: 12rem; }
.data-table .row-actions { flex-direction: column; align-items: stretch; }
.data-table .row-actions .inline-form, .data-table .row-actions .button { width: 100%; }
.data-table .row-actions-inline { flex-direction: row; align-items: center; }
.data-table .row-actions-inline .inline-form, .data-table .row-actions-inline .button { width: auto; }
.chips, .plain { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem; }
.plain { flex-direction: column; }
.chips li { font-size: 0.75rem; padding: 0 0.4rem; border-radius: 4px; background: var(--bg); border: 1px solid var(--line); white-space: nowrap; }
.badge-test { background: #fff4e5; color: #8a4b00; border-color: #f0c36d; }
@media (prefers-color-scheme: dark) { .badge-test { background: #3a2a10; color: #f6c26b; border-color: #6b4e1e; } }
.badge-role-member { background: transparent; color: var(--muted); border-color: var(--line); }
.state { display: inline-flex; align-items: center; gap: 0.35rem; font-weight: 600; white-space: nowrap; }
.state::before { content: ""; width: 0.55rem; height: 0.55rem; border-radius: 50%; background: currentColor; }
.state-on { color: var(--success); }
.state-off { color: var(--muted); }
.row-actions { display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; }
.inline-form { margin: 0; display: inline-flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; }
.row-actions .button { white-space: nowrap; }
.role-form .field { display: block; }
.button-danger { color: var(--error); }
.button-danger:hover { background: var(--error-soft); }
.button-danger-solid { background: var(--error); color: var(--surface); }
.actions { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: center; }
.content .stack .actions .button-primary, .actions .button { width: auto; margin-top: 0; }

.field textarea, .field select { font: inherit; color: var(--fg); background: var(--surface); border: 1px solid var(--line);
  border-radius: 8px; padding: 0.5rem 0.75rem; width: 100%; }
.field select { min-height: 2.75rem; }
.role-form select { min-height: 2.25rem; padding: 0.25rem 0.5rem; width: auto; font-size: 0.9rem; }
.field textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; resize: vertical; }
.field-invalid textarea, .field-invalid select { border-color: var(--error); }
fieldset.field { border: 0; margin: 0; padding: 0; min-width: 0; }
fieldset.field legend { font-weight: 600; font-size: 0.95rem; padding: 0; margin-bottom: 0.35rem; }
.checkbox-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: 0.35rem 1rem; }
.checkbox { display: flex; align-items: center; gap: 0.5rem; min-height: 2rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 0.9rem; cursor: pointer; }
.checkbox input { width: 1.1rem; height: 1.1rem; accent-color: var(--accent); margin: 0; }

/* The header keeps one row while it fits, then the nav takes a row of its own; on phones "Account" stands for the email. */
@media (max-width: 64rem) {
  .nav { order: 3; flex-basis: 100%; overflow-x: auto; }
  .account { margin-left: auto; }
}
@media (max-width: 40rem) {
  .topbar-inner { padding: 0.6rem 1rem; gap: 0.5rem; }
  .workspace-bar-inner { padding: 0.4rem 1rem; }
  .account { gap: 0.3rem; }
  .account-link { padding: 0.3rem 0.4rem; }
  .sign-out .button { padding: 0.35rem 0.6rem; }
  .nav a { padding: 0.4rem 0.5rem; font-size: 0.95rem; }
  .account-email { display: none; }
  .account-short { display: inline; }
  .content { padding: 1.5rem 1rem 2.5rem; }
  .card { padding: 1.25rem; }
  .solo-card { padding: 1.5rem 1.25rem; }
}

/* Narrow screens: each table row becomes a card of labelled facts. */
@media (max-width: 68rem) {
  .grid-wide-first { grid-template-columns: minmax(0, 1fr); }
  .data-table thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .data-table, .data-table tbody, .data-table tr, .data-table th, .data-table td { display: block; }
  .data-table tr { border: 1px solid var(--line); border-radius: 8px; padding: 0.35rem 0.75rem; margin-bottom: 0.75rem; }
  .data-table tbody tr:last-child { margin-bottom: 0; }
  .data-table tbody th, .data-table td { display: grid; grid-template-columns: 6.5rem minmax(0, 1fr); gap: 0.75rem;
    padding: 0.45rem 0; border-bottom: 1px solid var(--line); }
  .data-table tbody tr > :last-child { border-bottom: 0; }
  .data-table tbody tr:last-child > * { border-bottom: 1px solid var(--line); }
  .data-table tbody tr:last-child > :last-child { border-bottom: 0; }
  .data-table tbody th::before, .data-table td::before { content: attr(data-label); color: var(--muted); font-weight: 500; }
  .data-table tbody th > *, .data-table td > * { justify-self: start; }
  .data-table .chips { min-width: 0; }
  .data-table .when { flex-direction: row; gap: 0.3rem; flex-wrap: wrap; }
  .data-table .row-actions { flex-direction: row; align-items: center; }
  .data-table .row-actions .inline-form, .data-table .row-actions .button { width: auto; }
  .data-table tbody th { overflow-wrap: anywhere; }
  .data-table td.cell-actions { display: block; padding-top: 0.6rem; }
  .data-table td.cell-actions::before { display: none; }
  .table-wrap { overflow: visible; margin: 0; padding: 0; }
}

.breadcrumb { margin: 0 0 0.25rem; font-size: 0.9rem; }
.tag-header h1 { margin-bottom: 0.25rem; overflow-wrap: anywhere; }
.tag-address { margin: 0 0 1rem; font-size: 0.9rem; overflow-wrap: anywhere; }
.tabs { border-bottom: 1px solid var(--line); margin-bottom: 1.5rem; overflow-x: auto; }
.tabs ul { display: flex; gap: 0.25rem; list-style: none; margin: 0; padding: 0; }
.tabs a { display: block; padding: 0.5rem 0.85rem; color: var(--muted); text-decoration: none; border-bottom: 2px solid transparent;
  white-space: nowrap; }
.tabs a:hover { color: var(--fg); }
.tabs a[aria-current="page"] { color: var(--accent); border-bottom-color: var(--accent); font-weight: 600; }
`;
