/**
 * The API reference page's start-up script (api-reference.ts), run after Redoc's bundle: renders
 * the OpenAPI document named by the container's data-spec-url. Redoc puts its styles in <style>
 * elements; it gives them the nonce this script's tag carries, the one the page's CSP allows
 * styles with (never 'unsafe-inline'). The theme takes the dashboard's accent and type.
 */
(() => {
  const container = document.getElementById('api-reference');
  const sans = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  window.Redoc.init(
    container.dataset.specUrl,
    {
      nonce: document.currentScript.nonce,
      requiredPropsFirst: true,
      theme: {
        colors: { primary: { main: '#0b57d0' } },
        typography: {
          fontFamily: sans,
          headings: { fontFamily: sans },
          code: { fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace" },
        },
      },
    },
    container,
  );
})();
