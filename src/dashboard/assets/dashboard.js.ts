/**
 * The dashboard's own script, served from /dashboard/assets/dashboard.js (no inline script under
 * the CSP). Enhancement only: every page works without it. Copy buttons copy the text of the
 * element named by data-copy; they stay hidden when scripts do not run.
 */
export const DASHBOARD_JS = `(() => {
  for (const button of document.querySelectorAll('[data-copy]')) button.hidden = false;
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Press Ctrl+C';
      getSelection().selectAllChildren(source);
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 2000);
  });
})();
`;
