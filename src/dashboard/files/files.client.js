/**
 * The files page's script (files.js). Without it the upload form sends one
 * file as a plain multipart POST. With it, files dropped on the drop zone or chosen in the
 * picker (several at once) are each sent by their own XHR, the File object itself in a
 * FormData, so the browser streams it from disk instead of reading it into memory; each gets a
 * row with a progress bar fed by upload.onprogress, and the service's message when refused. A
 * file over the plan maximum is refused before sending, with the service's own words (the
 * page carries them). Once the server has answered, the file list and the storage meter are
 * fetched again from the page's own address.
 */
(() => {
  const form = document.querySelector('form[data-upload]');
  if (!form) return;
  const input = form.querySelector('input[type=file]');
  const zone = form.querySelector('.drop-zone');
  const list = document.getElementById('upload-list');
  const token = form.elements.namedItem('_csrf').value;
  const maxBytes = Number(form.dataset.maxBytes);
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];

  // Uploads start as files are chosen or dropped: the Upload button is for the plain form.
  form.classList.add('upload-enhanced');
  input.multiple = true;
  input.required = false;

  function size(bytes) {
    let value = bytes;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
    if (shown >= 1024 && unit < units.length - 1) return '1 ' + units[unit + 1];
    return shown + ' ' + units[unit];
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** One upload's row: name, size, progress bar, state. */
  function row(file) {
    const item = element('li', 'upload-row');
    const head = element('div', 'upload-head');
    head.append(element('span', 'upload-name', file.name), element('span', 'upload-size muted', size(file.size)));
    const bar = element('progress', 'upload-bar');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-label', 'Upload of ' + file.name);
    const state = element('p', 'upload-state muted', 'Waiting…');
    item.append(head, bar, state);
    list.prepend(item);
    return {
      progress(percent) {
        bar.value = percent;
        state.textContent = percent < 100 ? percent + ' %' : 'Checking and saving…';
      },
      done() {
        bar.value = 100;
        item.classList.add('upload-done');
        state.textContent = 'Uploaded';
      },
      fail(message) {
        item.classList.add('upload-failed');
        bar.remove();
        state.className = 'upload-state field-error';
        state.textContent = message;
      },
    };
  }

  let refreshing = Promise.resolve();

  /** The list and meter as the server now has them (after each stored upload, one at a time). */
  function refresh() {
    refreshing = refreshing
      .then(async () => {
        const response = await fetch(location.href, { headers: { accept: 'text/html' } });
        if (!response.ok) return;
        const page = new DOMParser().parseFromString(await response.text(), 'text/html');
        for (const id of ['files-card', 'storage-card']) {
          const fresh = page.getElementById(id);
          const current = document.getElementById(id);
          if (fresh && current) current.replaceWith(document.importNode(fresh, true));
        }
      })
      .catch(() => {});
  }

  function upload(file) {
    const view = row(file);
    if (file.size > maxBytes) return view.fail(form.dataset.tooLarge);
    const data = new FormData();
    data.append('file', file, file.name);
    const request = new XMLHttpRequest();
    request.open('POST', form.action);
    request.setRequestHeader('x-csrf-token', token);
    request.setRequestHeader('accept', 'application/json');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) view.progress(Math.min(100, Math.floor((event.loaded / event.total) * 100)));
    };
    request.onload = () => {
      let body = {};
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // An answer that is not JSON (a proxy's error page) carries no message of the service's.
      }
      // Whatever the answer, the storage meter shows what the server now counts.
      refresh();
      if (request.status === 201) {
        view.done();
      } else if (body.error) {
        view.fail(body.error);
      } else if (request.status === 403) {
        view.fail('This page has expired. Reload it and try again.');
      } else {
        view.fail('The upload failed. Try again in a moment.');
      }
    };
    request.onerror = () => view.fail('The upload was interrupted. Check the connection and try again.');
    request.send(data);
  }

  input.addEventListener('change', () => {
    for (const file of input.files) upload(file);
    input.value = '';
  });
  for (const type of ['dragenter', 'dragover']) {
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add('drop-over');
    });
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('drop-over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('drop-over');
    for (const file of event.dataTransfer.files) upload(file);
  });
})();
