/** The Admin area's styles (views/admin.tsx), served after dashboard.css in the same file. */
export const ADMIN_CSS = `
.admin-header h1 { margin-bottom: 0.25rem; }
.stats { display: grid; gap: 1.25rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 9rem), 1fr)); margin-bottom: 1.25rem; }
.stat p { margin: 0; }
.stat-label { font-weight: 600; color: var(--muted); font-size: 0.9rem; }
.stat-label a { color: inherit; }
.stat-label a:hover { color: var(--accent); }
.stat-value { font-size: 2rem; font-weight: 700; line-height: 1.2; margin: 0.25rem 0 0.15rem; letter-spacing: -0.02em; }
.stat-detail { font-size: 0.85rem; }
.admin-search { display: flex; gap: 0.5rem; align-items: center; flex: 0 1 26rem; min-width: 0; }
.admin-search input { font: inherit; color: var(--fg); background: var(--surface); border: 1px solid var(--line); border-radius: 8px;
  padding: 0.45rem 0.75rem; min-height: 2.5rem; flex: 1 1 auto; min-width: 0; }
.admin-search .button { min-height: 2.5rem; flex: none; }
.admin-search input:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; border-color: var(--focus); }
.row-disabled th { color: var(--muted); font-weight: 500; }
.admin-email { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.4rem; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  .admin-search { flex-basis: 100%; }
  .stat { padding: 1rem 1.1rem; }
  .stat-value { font-size: 1.6rem; }
}
`;
