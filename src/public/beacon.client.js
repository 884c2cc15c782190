(function () {
  var script = document.currentScript;
  var token = script && script.getAttribute('data-view');
  if (!token) return;
  var url = '/v/' + encodeURIComponent(token) + '/beacon';
  var started = Date.now();
  function send() {
    var body = JSON.stringify({ duration_seconds: Math.round((Date.now() - started) / 1000) });
    if (navigator.sendBeacon && navigator.sendBeacon(url, body)) return;
    fetch(url, { method: 'POST', body: body, keepalive: true, headers: { 'content-type': 'text/plain' } });
  }
  setInterval(function () { if (document.visibilityState === 'visible') send(); }, 15000);
  document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'hidden') send(); });
})();
