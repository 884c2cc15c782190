/** Styles of the tag list, New Tag, a tag's Overview and its editor (appended to dashboard.css). */
export const TAGS_CSS = `
.page-header { display: flex; flex-wrap: wrap; gap: 0.75rem 1.5rem; align-items: flex-start; justify-content: space-between; margin-bottom: 1.25rem; }
.page-header h1 { margin-bottom: 0.25rem; }
.page-header .lead { margin: 0; }
.page-actions { flex: none; }
.page-actions .button { min-height: 2.5rem; padding: 0.45rem 1rem; font-size: 0.95rem; }
.page-actions .button-primary, .empty .button-primary, .editor-bar .button-primary { width: auto; margin-top: 0; }

.filters { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr) minmax(0, 1fr) auto; gap: 0.75rem; align-items: end;
  margin-bottom: 1rem; }
.filters input, .filters select { min-height: 2.5rem; height: 2.5rem; padding-top: 0.3rem; padding-bottom: 0.3rem; }
.filter-actions .button { min-height: 2.5rem; }
.empty { text-align: center; padding: 2.5rem 1rem; }
.empty h2 { font-size: 1.25rem; }
.empty p { max-width: 28rem; margin-left: auto; margin-right: auto; }
.visibility { display: inline-flex; align-items: center; gap: 0.35rem; font-weight: 500; white-space: nowrap; }
.visibility::before { content: ""; width: 0.5rem; height: 0.5rem; border-radius: 50%; background: currentColor; }
.visibility-public { color: var(--success); }
.visibility-private { color: var(--muted); }
.visibility-organization { color: var(--accent); }
.data-table tbody th a { color: var(--fg); text-decoration: none; }
.data-table tbody th a:hover { color: var(--accent); text-decoration: underline; }

.stats { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 0.75rem; margin: 0 0 0.75rem; }
.stat { border: 1px solid var(--line); border-radius: 8px; padding: 0.85rem 1rem; background: var(--bg);
  display: flex; flex-direction: column-reverse; gap: 0.15rem; }
.stat dt { color: var(--muted); font-size: 0.9rem; }
.stat dd { margin: 0; font-size: 1.75rem; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.2; }
.card-danger { border-color: color-mix(in srgb, var(--error) 40%, var(--line)); }

.field-row { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 13rem), 1fr)); gap: 1rem; align-items: start; }
.field-row-wide { grid-template-columns: minmax(0, 2fr) minmax(min(100%, 10rem), 1fr); }
.checkbox-plain { font-family: inherit; font-size: 0.95rem; font-weight: 600; }
.field-checkbox .field-hint { margin-left: 1.6rem; }

.editor { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.25rem; align-items: start; }
.editor-form { display: grid; gap: 1.25rem; min-width: 0; }
.editor-bar { position: sticky; top: 0; z-index: 2; display: flex; gap: 0.6rem; align-items: center; justify-content: flex-end;
  padding: 0.6rem 0.75rem; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); }
.editor-status { margin-right: auto; font-size: 0.9rem; }
.blocks { list-style: none; margin: 0 0 1rem; padding: 0; display: grid; gap: 0.75rem; }
.block fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem 1rem; margin: 0; min-width: 0;
  display: grid; gap: 0.75rem; background: var(--bg); }
.block-invalid fieldset { border-color: var(--error); }
.block-head { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: 0.5rem; }
.block-title { font-weight: 600; }
.block-number { display: inline-grid; place-items: center; min-width: 1.6rem; height: 1.6rem; padding: 0 0.3rem; border-radius: 999px;
  background: var(--accent-soft); color: var(--accent); font-size: 0.8rem; margin-right: 0.2rem; }
.block-tools { display: flex; gap: 0.35rem; }
.block-tools .button { min-height: 2rem; padding: 0.2rem 0.6rem; font-size: 0.85rem; background: var(--surface); }
.block textarea { font-family: inherit; font-size: 0.95rem; }
.block textarea[name$="[content]"][rows="6"] { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; }
.block .field input, .block .field select, .block .field textarea { background: var(--surface); }
.block-flags { display: flex; gap: 1.5rem; }
.add-block { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; padding-top: 0.75rem; border-top: 1px dashed var(--line); }
.add-block-label { font-weight: 600; font-size: 0.9rem; margin-right: 0.35rem; }
.editor-preview { position: sticky; top: 1rem; display: grid; gap: 0.5rem; }
.editor-preview h2 { margin: 0; }
.preview-frame { width: 100%; height: min(78vh, 52rem); border: 1px solid var(--line); border-radius: var(--radius); background: #fff;
  box-shadow: var(--shadow); }
@media (prefers-color-scheme: dark) { .preview-frame { background: #121212; } }

@media (max-width: 68rem) {
  .editor { grid-template-columns: minmax(0, 1fr); }
  .editor-preview { position: static; }
  .preview-frame { height: 28rem; }
}
@media (max-width: 40rem) {
  .filters { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
  .filter-search { grid-column: 1 / -1; }
  .filter-actions { grid-column: 1 / -1; }
  .filter-actions .button { width: 100%; }
  .stats { grid-template-columns: minmax(0, 1fr); }
  .stat { flex-direction: row-reverse; justify-content: space-between; align-items: baseline; }
  .stat dd { font-size: 1.4rem; }
  .page-actions { width: 100%; }
  .editor-bar { top: 0; border-radius: 0; margin: 0 -1rem; }
  .field-row-wide { grid-template-columns: minmax(0, 1fr); }
  .block fieldset { padding: 0.6rem 0.75rem 0.85rem; }
  .block-tools .button { padding: 0.2rem 0.5rem; }
}
`;
