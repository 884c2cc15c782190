/** Styles of the folders, tag import and QR screens (appended to dashboard.css). */
export const TAGS_EXTRA_CSS = `
.page-head h1 { margin-bottom: 0.25rem; }
.folder-tree { list-style: none; margin: 0; padding: 0 0 0 1.25rem; border-left: 1px solid var(--line); }
.folder-tree-root { padding-left: 0; border-left: 0; }
.folder-row { display: flex; align-items: center; gap: 0.75rem; flex-wrap: wrap; padding: 0.55rem 0.5rem; border-radius: 8px; }
.folder-row:hover { background: var(--accent-soft); }
.folder-name { font-weight: 600; display: inline-flex; align-items: center; gap: 0.5rem; min-width: 0; overflow-wrap: anywhere; }
.folder-icon { width: 1rem; height: 0.8rem; border-radius: 2px 3px 3px 3px; background: var(--accent); opacity: 0.75; flex: none;
  position: relative; }
.folder-icon::before { content: ""; position: absolute; left: 0; top: -0.18rem; width: 0.45rem; height: 0.25rem; border-radius: 2px 2px 0 0;
  background: inherit; }
.count-badge { font-size: 0.8rem; color: var(--muted); background: var(--bg); border: 1px solid var(--line); border-radius: 999px;
  padding: 0.05rem 0.55rem; white-space: nowrap; }
.folder-link { margin-left: auto; font-size: 0.9rem; white-space: nowrap; }
.move-form { display: flex; gap: 0.5rem; align-items: center; }
.move-form .field { margin: 0; }
.move-form select { min-width: 10rem; }
.search-form { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.35rem; margin-bottom: 1rem; }
.search-form label { font-weight: 600; font-size: 0.95rem; }
.search-row { display: flex; gap: 0.5rem; }
.search-row input { font: inherit; width: 0; color: var(--fg); background: var(--surface); border: 1px solid var(--line); border-radius: 8px;
  padding: 0.6rem 0.75rem; min-height: 2.75rem; flex: 1; min-width: 0; }
.candidate-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.25rem; max-height: 22rem; overflow-y: auto; }
.candidate-list li { display: flex; justify-content: space-between; align-items: center; gap: 1rem; padding: 0.3rem 0;
  border-bottom: 1px solid var(--line); }
.candidate-list li:last-child { border-bottom: 0; }
.candidate-list .checkbox { font-family: inherit; font-size: 1rem; font-weight: 400; min-width: 0; overflow-wrap: anywhere; }
.candidate-list .muted { font-size: 0.85rem; white-space: nowrap; }
.danger-zone { margin-top: 1.5rem; padding-top: 1.25rem; border-top: 1px solid var(--line); }
.danger-zone h3 { margin: 0 0 0.25rem; font-size: 1rem; }
.card .table-wrap + p { margin-top: 1.25rem; }
.example { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; overflow-x: auto;
  font-size: 0.9rem; margin: 0 0 1rem; }
.created-list { margin: 0; padding-left: 1.25rem; display: grid; gap: 0.35rem; }
.created-list code { margin-left: 0.35rem; }
@media (min-width: 60rem) { .qr-grid { grid-template-columns: minmax(0, 1fr) minmax(0, 1.2fr); } }
.qr-preview figure { margin: 0; display: grid; gap: 1rem; justify-items: center; text-align: center; }
.qr-frame { display: grid; place-items: center; width: 100%; min-height: 16rem; padding: 1.25rem; border-radius: var(--radius);
  background: repeating-conic-gradient(var(--bg) 0% 25%, var(--surface) 0% 50%) 50% / 20px 20px; border: 1px solid var(--line); }
.qr-frame img { width: min(100%, 15rem); height: auto; image-rendering: pixelated; border-radius: 4px; box-shadow: var(--shadow); }
.qr-preview figcaption { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
.qr-preview figcaption a { color: inherit; }
.qr-colours { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.field input[type="color"] { padding: 0.25rem; height: 2.75rem; cursor: pointer; }
.how-list { margin: 0; padding-left: 1.1rem; display: grid; gap: 0.75rem; }
.alert ul { margin: 0.5rem 0 0; padding-left: 1.25rem; }
.alert p { margin: 0; }
`;
