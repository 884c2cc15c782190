/**
 * The webhook pages' script (webhooks.js), enhancement only: without it
 * Reveal loads the page with the secret shown, and Add header / Remove send the form back to
 * the server, which answers it with one row more or less. Here Reveal toggles the secret in
 * place, and header rows are added from their <template> and removed on the page.
 */
(() => {
  document.addEventListener('submit', (event) => {
    const form = event.target instanceof HTMLFormElement ? event.target : null;
    if (!form || !('reveal' in form.dataset)) return;
    event.preventDefault();
    const secret = document.getElementById('webhook-secret');
    const mask = form.parentElement.querySelector('.secret-mask');
    const button = form.querySelector('button');
    const shown = secret.hidden;
    secret.hidden = !shown;
    mask.hidden = shown;
    button.textContent = shown ? 'Hide' : 'Reveal';
    button.setAttribute('aria-pressed', String(shown));
  });
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-add-header], [data-remove-header]') : null;
    if (!button) return;
    event.preventDefault();
    const rows = document.getElementById('header-rows');
    if (button.matches('[data-remove-header]')) {
      const row = button.closest('[data-header-row]');
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      (next ? next.querySelector('input') : document.querySelector('[data-add-header]')).focus();
      return;
    }
    const template = document.getElementById('header-row-template');
    const row = template.content.firstElementChild.cloneNode(true);
    rows.append(row);
    row.querySelector('input').focus();
  });
})();
