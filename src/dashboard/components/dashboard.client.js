/**
 * The dashboard's own script, served as dashboard.js on every page (no inline script under
 * the CSP). Enhancement only: every page works without it. Copy buttons copy the text of the
 * element named by data-copy; they stay hidden when scripts do not run. A form with
 * data-confirm asks first, then sends confirmed=yes (without scripts the server asks on a page
 * of its own). A page showing a secret once (data-once) replaces its history entry by a GET of
 * the same address, so reloading it shows the plain page instead of sending the form again.
 * The nav and tab strips start scrolled to their current item. Times marked data-local show in
 * the reader's time zone. The browser's time zone goes to the server in the tz cookie, for the
 * analytics of a person who chose none on the Account page (a hint: the pages name the zone
 * they use, UTC until the cookie is there).
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
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (browserZone) {
    const secure = location.protocol === 'https:' ? '; Secure' : '';
    document.cookie = `tz=${encodeURIComponent(browserZone)}; Path=/dashboard; Max-Age=31536000; SameSite=Lax${secure}`;
  }
  // Times marked data-local are rendered in UTC; the reader sees them in their own time zone.
  const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const zoneName = (date) =>
    new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(date).find((part) => part.type === 'timeZoneName').value;
  for (const time of document.querySelectorAll('time[data-local]')) {
    const date = new Date(time.dateTime);
    if (!Number.isNaN(date.getTime())) time.textContent = `${localTime.format(date)} ${zoneName(date)}`;
  }
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
  // What a Copy button did is said aloud too: its own text changing is not announced.
  let announcer;
  const announce = (message) => {
    if (!announcer) {
      announcer = document.createElement('div');
      announcer.className = 'visually-hidden';
      announcer.setAttribute('aria-live', 'polite');
      document.body.append(announcer);
    }
    announcer.textContent = '';
    setTimeout(() => {
      announcer.textContent = message;
    }, 50);
  };
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    // The visible word only: a hidden rest of the button's name (what it copies) stays.
    const label = button.querySelector('[data-copy-label]') || button;
    try {
      await navigator.clipboard.writeText(source.dataset.copyText || source.textContent.trim());
      label.textContent = 'Copied';
      announce('Copied to the clipboard.');
    } catch {
      label.textContent = 'Press Ctrl+C';
      getSelection().selectAllChildren(source);
      announce('Selected: press Ctrl+C to copy.');
    }
    setTimeout(() => {
      label.textContent = 'Copy';
    }, 2000);
  });
})();
