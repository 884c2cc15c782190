/**
 * The dashboard's own script, served as dashboard.js on every page (no inline script under
 * the CSP). Enhancement only: every page works without it. Copy buttons copy the text of the
 * element named by data-copy; they stay hidden when scripts do not run. A form with
 * data-confirm asks first, then sends confirmed=yes (without scripts the server asks on a page
 * of its own). A page showing a secret once (data-once) replaces its history entry by a GET of
 * the same address, so reloading it shows the plain page instead of sending the form again.
 * The nav and tab strips start scrolled to their current item.
 */
(() => {
  // On a phone the nav and the tabs are strips that scroll sideways: each starts scrolled to its
  // current item, centred where it can be, so the page says where you are. Only the strip
  // scrolls (scrollIntoView would move the page too).
  for (const current of document.querySelectorAll('.nav [aria-current="page"], .tabs [aria-current="page"]')) {
    const strip = current.closest('.nav, .tabs');
    if (strip.scrollWidth <= strip.clientWidth) continue;
    const item = current.getBoundingClientRect();
    const box = strip.getBoundingClientRect();
    strip.scrollLeft += item.left - box.left - (box.width - item.width) / 2;
  }
  for (const button of document.querySelectorAll('[data-copy]')) button.hidden = false;
  // A form marked data-autosubmit is sent as soon as its select changes; its button is for no-script.
  for (const button of document.querySelectorAll('[data-autosubmit-button]')) button.hidden = true;
  document.addEventListener('change', (event) => {
    const form = event.target instanceof HTMLSelectElement ? event.target.closest('form[data-autosubmit]') : null;
    if (form) form.requestSubmit();
  });
  if (document.querySelector('[data-once]')) history.replaceState(null, '', location.href);
  document.addEventListener('submit', (event) => {
    const form = event.target instanceof HTMLFormElement ? event.target : null;
    if (!form || !form.dataset.confirm) return;
    if (!confirm(form.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    const confirmed = form.elements.namedItem('confirmed');
    if (confirmed) confirmed.value = 'yes';
  });
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
    setTimeout(() => {
      button.textContent = 'Copy';
    }, 2000);
  });
})();
