import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ANALYTICS_CSS } from './analytics.css.js';
import { CHARTS_JS } from './charts.js.js';
import { DASHBOARD_CSS, ICON_SVG } from './dashboard.css.js';
import { DASHBOARD_JS } from './dashboard.js.js';

/** A file the dashboard serves under /dashboard/assets/: its name, media type and text. */
export interface Asset {
  name: string;
  type: 'text/css' | 'text/javascript' | 'image/svg+xml';
  body: string;
}

const require = createRequire(import.meta.url);
const fromPackage = (specifier: string) => readFileSync(require.resolve(specifier), 'utf8');

/**
 * Every asset, read once at start. Styles and scripts come from this origin only (the CSP has
 * no inline code); a screen that needs a script of its own adds it here and names it in
 * renderAppPage's `scripts`.
 */
export function dashboardAssets(): Asset[] {
  return [
    { name: 'dashboard.css', type: 'text/css', body: DASHBOARD_CSS + ANALYTICS_CSS + fromPackage('uplot/dist/uPlot.min.css') },
    { name: 'dashboard.js', type: 'text/javascript', body: DASHBOARD_JS },
    { name: 'htmx.min.js', type: 'text/javascript', body: fromPackage('htmx.org/dist/htmx.min.js') },
    { name: 'icon.svg', type: 'image/svg+xml', body: ICON_SVG },
    { name: 'uplot.js', type: 'text/javascript', body: fromPackage('uplot/dist/uPlot.iife.min.js') },
    { name: 'charts.js', type: 'text/javascript', body: CHARTS_JS },
  ];
}
