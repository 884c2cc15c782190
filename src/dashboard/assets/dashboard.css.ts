/**
 * The dashboard's only stylesheet, served from /dashboard/assets/dashboard.css so the CSP can
 * forbid inline styles. The public page's palette and type (features/pages/page.css.ts), with
 * a dark scheme and visible focus everywhere.
 */
export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #f6f7f9; --surface: #ffffff; --muted: #5f6368; --line: #d9dce1;
  --accent: #0b57d0; --accent-fg: #ffffff; --accent-soft: #e8f0fe; --error: #b3261e; --error-soft: #fce8e6;
  --success: #146c2e; --success-soft: #e6f4ea; --focus: #0b57d0; --radius: 10px;
  --shadow: 0 1px 2px rgb(0 0 0 / 6%), 0 1px 8px rgb(0 0 0 / 4%); }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #121212; --surface: #1e1f21; --muted: #a8abb0;
  --line: #3c4043; --accent: #8ab4f8; --accent-fg: #0b1a33; --accent-soft: #1f2a3d; --error: #f28b82; --error-soft: #3b1f1d;
  --success: #81c995; --success-soft: #1b3022; --focus: #8ab4f8; --shadow: none; } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); text-underline-offset: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 0 0 0.75rem; }
p { margin: 0 0 1rem; }
.skip-link { position: absolute; left: 0.75rem; top: -4rem; z-index: 10; background: var(--surface); color: var(--fg);
  padding: 0.5rem 0.9rem; border-radius: var(--radius); box-shadow: var(--shadow); border: 1px solid var(--line); }
.skip-link:focus { top: 0.75rem; }

.brand { display: inline-flex; align-items: center; gap: 0.55rem; font-weight: 700; font-size: 1.15rem; color: var(--fg);
  text-decoration: none; letter-spacing: -0.01em; }
.brand-mark { width: 1.5rem; height: 1.5rem; border-radius: 6px; background: var(--accent);
  box-shadow: inset 0 0 0 5px var(--accent), inset 0 0 0 8px var(--surface); }

.topbar { background: var(--surface); border-bottom: 1px solid var(--line); }
.topbar-inner { max-width: 64rem; margin: 0 auto; padding: 0.6rem 1.25rem; display: flex; align-items: center; gap: 1rem 1.5rem;
  flex-wrap: wrap; }
.nav { flex: 1 1 auto; }
.nav ul { list-style: none; display: flex; gap: 0.25rem; margin: 0; padding: 0; }
.nav a { display: block; padding: 0.45rem 0.75rem; border-radius: 8px; color: var(--muted); text-decoration: none; font-weight: 500; }
.nav a:hover { color: var(--fg); background: var(--bg); }
.nav a[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
.account { display: flex; align-items: center; gap: 0.6rem; min-width: 0; }
.account-email { color: var(--muted); font-size: 0.9rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 16rem; }
.sign-out { margin: 0; }

.content { max-width: 64rem; margin: 0 auto; padding: 2rem 1.25rem 3rem; }
.grid { display: grid; gap: 1.25rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 22rem), 1fr)); align-items: start; }
.card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.5rem; box-shadow: var(--shadow); }
.card > :last-child { margin-bottom: 0; }
.facts { margin: 0 0 1rem; display: grid; gap: 0.6rem; }
.facts div { display: flex; justify-content: space-between; gap: 1rem; border-bottom: 1px solid var(--line); padding-bottom: 0.6rem; }
.facts div:last-child { border-bottom: 0; padding-bottom: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; text-align: right; overflow-wrap: anywhere; }

.badge { display: inline-block; font-size: 0.75rem; font-weight: 600; padding: 0.1rem 0.55rem; border-radius: 999px;
  background: var(--accent-soft); color: var(--accent); border: 1px solid color-mix(in srgb, var(--accent) 35%, transparent); }
.badge-free { background: transparent; color: var(--muted); border-color: var(--line); }

.code { display: flex; gap: 0.5rem; align-items: flex-start; margin: 0 0 1rem; }
.code pre { flex: 1 1 auto; min-width: 0; margin: 0; padding: 0.75rem 1rem; background: var(--bg); border: 1px solid var(--line);
  border-radius: 8px; font-size: 0.85rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.code .copy { flex: none; }

.solo { display: flex; min-height: 100vh; }
.solo-main { width: 100%; max-width: 26rem; margin: auto; padding: 2rem 1.25rem; }
.solo-brand { text-align: center; margin-bottom: 1.25rem; }
.solo-card { padding: 2rem 1.75rem; }
.lead { color: var(--muted); }
.switch { text-align: center; color: var(--muted); margin: 1.25rem 0 0; }

.stack { display: grid; gap: 1rem; }
.field { display: grid; gap: 0.35rem; }
.field label { font-weight: 600; font-size: 0.95rem; }
.field input { font: inherit; color: var(--fg); background: var(--surface); border: 1px solid var(--line); border-radius: 8px;
  padding: 0.6rem 0.75rem; min-height: 2.75rem; width: 100%; }
.field input:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; border-color: var(--focus); }
.field-invalid input { border-color: var(--error); }
.field-hint { margin: 0; color: var(--muted); font-size: 0.85rem; }
.field-error { margin: 0; color: var(--error); font-size: 0.9rem; font-weight: 500; }

.button { display: inline-flex; align-items: center; justify-content: center; font: inherit; font-weight: 600; border-radius: 8px;
  padding: 0.55rem 1rem; min-height: 2.5rem; cursor: pointer; text-decoration: none; border: 1px solid transparent; }
.button-primary { background: var(--accent); color: var(--accent-fg); width: 100%; min-height: 2.75rem; margin-top: 0.25rem; }
.button-primary:hover { filter: brightness(1.08); }
.button-secondary { background: var(--surface); color: var(--fg); border-color: var(--line); }
.button-quiet { background: transparent; color: var(--fg); border-color: var(--line); padding: 0.35rem 0.8rem; min-height: 2.25rem;
  font-size: 0.9rem; }
.button-quiet:hover { background: var(--bg); }
.content .stack .button-primary { width: auto; justify-self: start; }

.alert { border-radius: 8px; padding: 0.75rem 1rem; margin: 0 0 1rem; border-left: 4px solid; }
.alert-error { background: var(--error-soft); border-color: var(--error); }
.alert-success { background: var(--success-soft); border-color: var(--success); }

@media (max-width: 40rem) {
  .topbar-inner { padding: 0.6rem 1rem; gap: 0.5rem 1rem; }
  .nav { order: 3; flex-basis: 100%; overflow-x: auto; }
  .account { margin-left: auto; }
  .account-email { display: none; }
  .content { padding: 1.5rem 1rem 2.5rem; }
  .card { padding: 1.25rem; }
  .solo-card { padding: 1.5rem 1.25rem; }
}
`;

/** The tab icon: the brand mark of the header. */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#0b57d0"/>' +
  '<rect x="5" y="5" width="14" height="14" rx="3" fill="#fff"/><rect x="8" y="8" width="8" height="8" rx="2" fill="#0b57d0"/></svg>';
