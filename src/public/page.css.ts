/** The public page's only stylesheet, served from /assets/page.css so the CSP can forbid inline styles. */
export const PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #eef1f6; --surface: #ffffff; --muted: #5f6368; --line: #dfe3ea;
  --accent: #0b57d0; --accent-soft: #e8f0fe; --button: #f6f8fb; --info: #0b57d0; --warning: #a05a00; --success: #146c2e; --error: #b3261e;
  --shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 8px 24px rgb(16 24 40 / 6%); --radius: 18px; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #0f1012; --surface: #1b1c1f; --muted: #a8abb0; --line: #34373c;
  --accent: #8ab4f8; --accent-soft: #1f2a3d; --button: #25272b; --info: #8ab4f8; --warning: #fdd663; --success: #81c995; --error: #f28b82;
  --shadow: 0 1px 2px rgb(0 0 0 / 30%), 0 8px 24px rgb(0 0 0 / 25%); } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; min-height: 100vh; color: var(--fg);
  background: radial-gradient(120% 60% at 50% 0%, var(--accent-soft) 0%, var(--bg) 70%) var(--bg);
  font: 1.0625rem/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 42rem; margin: 0 auto; padding: 1rem 0.75rem 2rem; }
article { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow);
  padding: 1.75rem 1.25rem 1.25rem; }
@media (min-width: 40rem) { main { padding: 2.5rem 1rem 3rem; } article { padding: 2.5rem 2.5rem 2rem; } }
h1 { font-size: 1.9rem; line-height: 1.2; letter-spacing: -0.01em; margin: 0 0 1.25rem; overflow-wrap: anywhere; }
h2, h3, h4, h5, h6 { line-height: 1.3; margin: 1.75rem 0 0.5rem; }
p { margin: 0 0 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
a { color: var(--accent); text-underline-offset: 2px; }
a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
img { max-width: 100%; height: auto; }
figure { margin: 1.25rem 0; }
figure img { display: block; border-radius: 12px; }
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

.button { display: flex; align-items: center; justify-content: center; min-height: 3.25rem; margin: 0.75rem 0;
  padding: 0.8rem 1.25rem; border: 1px solid var(--line); border-radius: 14px; background: var(--button);
  color: var(--fg); font-weight: 600; text-align: center; text-decoration: none; overflow-wrap: anywhere;
  box-shadow: 0 1px 2px rgb(16 24 40 / 6%); transition: transform 0.12s ease, border-color 0.12s ease, box-shadow 0.12s ease; }
.button:hover { border-color: var(--accent); box-shadow: 0 4px 14px rgb(16 24 40 / 10%); transform: translateY(-1px); }
.button:active { transform: translateY(0); }
.button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }

.files { margin-top: 2rem; }
.files h2 { font-size: 0.8rem; font-weight: 600; letter-spacing: 0.06em; text-transform: uppercase; color: var(--muted);
  margin: 0 0 0.5rem; }
.files ul { list-style: none; margin: 0; padding: 0; }
.file { display: flex; align-items: center; gap: 0.85rem; margin: 0.5rem 0; padding: 0.7rem 0.9rem; min-height: 3.25rem;
  border: 1px solid var(--line); border-radius: 14px; color: var(--fg); text-decoration: none; }
.file:hover { border-color: var(--accent); background: color-mix(in srgb, var(--accent) 5%, transparent); }
.file-type { flex: none; min-width: 2.6rem; padding: 0.3rem 0.4rem; border-radius: 8px; background: var(--accent-soft);
  color: var(--accent); font-size: 0.72rem; font-weight: 700; letter-spacing: 0.03em; text-align: center; }
.file-name { flex: 1; min-width: 0; font-weight: 600; line-height: 1.35; overflow-wrap: anywhere; }
.file-size { flex: none; color: var(--muted); font-size: 0.9rem; }
.file-size::after { content: "\\2193"; display: inline-block; margin-left: 0.6rem; color: var(--accent); font-weight: 700; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }

.not-found { text-align: center; padding-top: 20vh; }
.not-found p { color: var(--muted); }
@media (prefers-reduced-motion: reduce) { .button { transition: none; } .button:hover { transform: none; } }
`;
