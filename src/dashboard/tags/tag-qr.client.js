/**
 * The QR page's script (tag-qr.js): the preview follows the options as they
 * change, from the same image address the page rendered; a size out of range keeps the last
 * preview. Without it the page still works: Download sends the form.
 */
(() => {
  const form = document.getElementById('qr-form');
  const image = document.getElementById('qr-preview-image');
  const caption = document.getElementById('qr-caption');
  if (!form || !image) return;
  let timer;
  const update = () => {
    const data = new FormData(form);
    const size = Number(data.get('size'));
    const sizeField = form.elements.namedItem('size');
    if (!Number.isInteger(size) || !sizeField.checkValidity()) return;
    const query = new URLSearchParams({
      format: String(data.get('format')),
      size: String(size),
      color: String(data.get('color')).replace('#', ''),
      background: String(data.get('background')).replace('#', ''),
    });
    image.src = image.dataset.qrBase + '?' + query;
    if (caption) caption.textContent = size + ' × ' + size + ' px, ' + String(data.get('format')).toUpperCase();
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(update, 250);
  };
  form.addEventListener('input', later);
  form.addEventListener('change', later);
})();
