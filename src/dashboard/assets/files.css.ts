/**
 * The files page (views/files.tsx): the drop zone, the progress rows of uploads, the storage
 * meter and the previews of the file table. Appended to dashboard.css (assets/index.ts).
 */
export const FILES_CSS = `
.upload-form { display: grid; gap: 0.75rem; }
.drop-zone { display: grid; justify-items: center; gap: 0.35rem; text-align: center; padding: 1.75rem 1rem;
  border: 2px dashed var(--line); border-radius: var(--radius); background: var(--bg); cursor: pointer; }
.drop-zone:hover, .upload-form:focus-within .drop-zone { border-color: var(--accent); }
.drop-zone.drop-over { border-color: var(--accent); background: var(--accent-soft); }
.drop-icon { width: 2.5rem; height: 2.5rem; border-radius: 50%; background: var(--accent-soft); color: var(--accent);
  display: grid; place-items: center; font-weight: 700; font-size: 1.25rem; }
.drop-icon::before { content: "\\2191"; }
.drop-title { font-weight: 600; }
.drop-link { color: var(--accent); text-decoration: underline; text-underline-offset: 2px; }
.drop-hint { color: var(--muted); font-size: 0.85rem; }
.drop-when-ready { display: none; }
.upload-enhanced .drop-when-ready { display: inline; }
.upload-input { font: inherit; font-size: 0.9rem; max-width: 100%; }
.upload-enhanced .upload-input { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0);
  border: 0; padding: 0; }
.upload-enhanced .upload-submit { display: none; }
.upload-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.5rem; }
.upload-list:not(:empty) { margin-top: 1rem; }
.upload-row { border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.75rem; display: grid; gap: 0.35rem; }
.upload-head { display: flex; justify-content: space-between; gap: 0.75rem; font-size: 0.9rem; }
.upload-name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.upload-size { flex: none; }
.upload-state { margin: 0; font-size: 0.85rem; }
.upload-done .upload-state { color: var(--success); font-weight: 600; }
.upload-failed { border-color: var(--error); background: var(--error-soft); }
.upload-bar, .storage-meter { -webkit-appearance: none; appearance: none; width: 100%; height: 0.5rem; border: 0; border-radius: 999px;
  background: var(--line); overflow: hidden; display: block; }
.upload-bar::-webkit-progress-bar { background: var(--line); border-radius: 999px; }
.upload-bar::-webkit-progress-value { background: var(--accent); border-radius: 999px; }
.upload-bar::-moz-progress-bar { background: var(--accent); border-radius: 999px; }
.upload-done .upload-bar::-webkit-progress-value { background: var(--success); }
.upload-done .upload-bar::-moz-progress-bar { background: var(--success); }
.storage-figure { font-size: 1.05rem; margin-bottom: 0.6rem; }
.storage-figure strong { font-size: 1.5rem; letter-spacing: -0.01em; }
.storage-meter { margin-bottom: 0.75rem; }
.storage-meter::-webkit-meter-inner-element { display: block; height: 100%; }
.storage-meter::-webkit-meter-bar { background: var(--line); border: 0; border-radius: 999px; height: 100%; margin: 0; padding: 0; }
.storage-meter::-webkit-meter-optimum-value { background: var(--accent); border-radius: 999px; }
.storage-meter::-webkit-meter-suboptimum-value { background: #b06000; border-radius: 999px; }
.storage-meter::-webkit-meter-even-less-good-value { background: var(--error); border-radius: 999px; }
.storage-meter::-moz-meter-bar { background: var(--accent); border-radius: 999px; }
.storage-meter:-moz-meter-sub-optimum::-moz-meter-bar { background: #b06000; }
.storage-meter:-moz-meter-sub-sub-optimum::-moz-meter-bar { background: var(--error); }
.file-thumb { width: 3rem; height: 3rem; border-radius: 6px; object-fit: cover; display: block; background: var(--bg);
  border: 1px solid var(--line); }
.file-type { display: grid; place-items: center; font-size: 0.7rem; font-weight: 700; color: var(--muted); letter-spacing: 0.03em; }
.file-name { display: block; overflow-wrap: anywhere; }
.file-description { display: block; font-weight: 400; font-size: 0.85rem; margin-top: 0.15rem; overflow-wrap: anywhere; white-space: pre-line; }
.data-table .cell-size { white-space: nowrap; }
.empty { margin: 0; }
`;
