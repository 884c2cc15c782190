/** The public page's only stylesheet, served from /assets/page.css so the CSP can forbid inline styles. */
export const PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #5f6368; --line: #d9dce1;
  --info: #0b57d0; --warning: #a05a00; --success: #146c2e; --error: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #121212; --muted: #a8abb0; --line: #3c4043;
  --info: #8ab4f8; --warning: #fdd663; --success: #81c995; --error: #f28b82; } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 1.0625rem/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 42rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.9rem; line-height: 1.25; margin: 0.5rem 0 1.25rem; overflow-wrap: anywhere; }
h2, h3, h4, h5, h6 { line-height: 1.3; margin: 1.75rem 0 0.5rem; }
p { margin: 0 0 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
a { color: var(--info); }
a:focus-visible { outline: 3px solid var(--info); outline-offset: 2px; }
img { max-width: 100%; height: auto; }
figure { margin: 1.25rem 0; }
figcaption { color: var(--muted); font-size: 0.9rem; }
hr { border: 0; border-top: 1px solid var(--line); margin: 2rem 0; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: 0.4rem 0.6rem; }
pre { overflow-x: auto; }
.callout { border-left: 4px solid var(--info); padding: 0.75rem 1rem; margin: 1rem 0; border-radius: 4px;
  background: color-mix(in srgb, var(--info) 8%, transparent); }
.callout p:last-child { margin-bottom: 0; }
.callout-warning { border-color: var(--warning); background: color-mix(in srgb, var(--warning) 10%, transparent); }
.callout-success { border-color: var(--success); background: color-mix(in srgb, var(--success) 10%, transparent); }
.callout-error { border-color: var(--error); background: color-mix(in srgb, var(--error) 10%, transparent); }
.html-block p { white-space: normal; }
.not-found { text-align: center; padding-top: 20vh; }
.not-found p { color: var(--muted); }
`;
