/**
 * The tag editor's script, served as tags.js. Enhancement only: without it
 * Add, Move and Remove are submit buttons the server answers with the form re-rendered, and
 * Preview posts the form into the preview frame. With it, those buttons change the form in
 * place (renumbering the blocks' field names, blocks[N][field], to their new order), and the
 * preview follows the form as you type: 400 ms after the last change, the form is posted into
 * a fresh frame (a fresh frame's first page replaces its blank one, so previews add no
 * history entries to Back through).
 *
 * The schedule's times are rendered in UTC (the server knows no reader's zone), each input
 * carrying the instant it shows (data-instant): they are shown in the browser's zone instead,
 * and the form says which zone, in time_zone, for the server to read them in. A form sent back
 * refused already holds the browser's zone and its times as typed. Picking an accent colour
 * unticks "Use the theme's accent"; ticking it, or choosing another theme while it is ticked,
 * shows that theme's accent in the colour input.
 */
(() => {
  const form = document.querySelector('[data-editor]');
  if (!form) return;
  const list = form.querySelector('[data-blocks]');
  const empty = form.querySelector('[data-blocks-empty]');
  const previewButton = form.querySelector('[data-preview]');
  const status = form.querySelector('[data-editor-status]');
  let dirty = false;
  let timer;

  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zoneField = form.querySelector('[data-time-zone]');
  if (zone && zoneField && zoneField.value !== zone) {
    const pad = (n) => String(n).padStart(2, '0');
    const local = (date) =>
      `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
    for (const input of form.querySelectorAll('input[data-instant]')) input.value = local(new Date(input.dataset.instant));
    zoneField.value = zone;
    form.querySelector('[data-time-zone-label]').textContent = zone;
  }

  const accent = form.querySelector('input[name="accent_color"]');
  const presetAccent = form.querySelector('input[name="preset_accent"]');
  const showPresetAccent = () => {
    const preset = form.querySelector('input[name="theme_preset"]:checked');
    if (presetAccent.checked && preset) accent.value = preset.dataset.accent;
  };
  if (accent && presetAccent) {
    accent.addEventListener('input', () => {
      presetAccent.checked = false;
    });
    presetAccent.addEventListener('change', showPresetAccent);
    for (const preset of form.querySelectorAll('input[name="theme_preset"]')) preset.addEventListener('change', showPresetAccent);
  }

  const INDEX = /blocks\[(\d+|__i__)\]|block-(\d+|__i__)-/g;
  const renumber = () => {
    [...list.children].forEach((block, index) => {
      for (const element of block.querySelectorAll('[name], [id], [for], [aria-labelledby], [aria-describedby]')) {
        for (const attribute of ['name', 'id', 'for', 'aria-labelledby', 'aria-describedby']) {
          const value = element.getAttribute(attribute);
          if (value)
            element.setAttribute(
              attribute,
              value.replace(INDEX, (match) => (match.startsWith('blocks[') ? 'blocks[' + index + ']' : 'block-' + index + '-')),
            );
        }
      }
      for (const button of block.querySelectorAll('[data-op]')) button.value = button.dataset.op + ':' + index;
      block.querySelector('[data-block-number]').textContent = String(index + 1);
    });
    empty.hidden = list.children.length > 0;
  };

  const refreshPreview = () => {
    const frame = document.querySelector('iframe[name="tag-preview"]');
    if (!frame) return;
    const fresh = document.createElement('iframe');
    for (const attribute of frame.attributes) if (attribute.name !== 'src') fresh.setAttribute(attribute.name, attribute.value);
    frame.replaceWith(fresh);
    form.requestSubmit(previewButton);
  };
  const changed = () => {
    dirty = true;
    status.textContent = 'Unsaved changes';
    clearTimeout(timer);
    timer = setTimeout(refreshPreview, 400);
  };

  const add = (type) => {
    const template = form.querySelector('template[data-block-template="' + type + '"]');
    const block = template.content.firstElementChild.cloneNode(true);
    list.append(block);
    renumber();
    (block.querySelector('textarea, input:not([type=hidden]), select') || block.querySelector('[data-op]')).focus();
  };
  const move = (block, step) => {
    const other = step < 0 ? block.previousElementSibling : block.nextElementSibling;
    if (!other) return;
    if (step < 0) other.before(block);
    else other.after(block);
    renumber();
  };

  form.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-op]') : null;
    if (!button) return;
    event.preventDefault();
    const op = button.dataset.op;
    const block = button.closest('[data-block]');
    if (op === 'add') add(button.value.split(':')[1]);
    else if (op === 'remove') {
      const next = block.nextElementSibling || block.previousElementSibling;
      block.remove();
      renumber();
      (next ? next.querySelector('[data-op="remove"]') : form.querySelector('[data-op="add"]')).focus();
    } else {
      move(block, op === 'up' ? -1 : 1);
      button.focus();
    }
    changed();
  });
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  form.addEventListener('submit', (event) => {
    if (event.submitter !== previewButton) dirty = false;
  });
  window.addEventListener('beforeunload', (event) => {
    if (dirty) event.preventDefault();
  });
})();
