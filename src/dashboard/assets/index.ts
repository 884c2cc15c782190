import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ADMIN_CSS } from './admin.css.js';
import { ANALYTICS_CSS } from './analytics.css.js';
import { CHARTS_JS } from './charts.js.js';
import { DASHBOARD_CSS } from './dashboard.css.js';
import { DASHBOARD_JS } from './dashboard.js.js';
import { FILES_CSS } from './files.css.js';
import { FILES_JS } from './files.js.js';
import { TAG_QR_JS } from './tag-qr.js.js';
import { TAGS_EXTRA_CSS } from './tags-extra.css.js';
import { TAGS_CSS } from './tags.css.js';
import { TAGS_JS } from './tags.js.js';
import { WEBHOOKS_CSS } from './webhooks.css.js';
import { WEBHOOKS_JS } from './webhooks.js.js';

/** A file the dashboard serves under /dashboard/assets/: its name, media type and text. */
export interface Asset {
  name: string;
  type: 'text/css' | 'text/javascript';
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
  // One stylesheet: the base, then each area's own rules (and uPlot's, for the charts).
  const styles = [
    DASHBOARD_CSS,
    TAGS_CSS,
    TAGS_EXTRA_CSS,
    FILES_CSS,
    ANALYTICS_CSS,
    fromPackage('uplot/dist/uPlot.min.css'),
    WEBHOOKS_CSS,
    ADMIN_CSS,
  ];
  return [
    { name: 'dashboard.css', type: 'text/css', body: styles.join('') },
    { name: 'dashboard.js', type: 'text/javascript', body: DASHBOARD_JS },
    { name: 'files.js', type: 'text/javascript', body: FILES_JS },
    { name: 'htmx.min.js', type: 'text/javascript', body: fromPackage('htmx.org/dist/htmx.min.js') },
    { name: 'tag-qr.js', type: 'text/javascript', body: TAG_QR_JS },
    { name: 'webhooks.js', type: 'text/javascript', body: WEBHOOKS_JS },
    { name: 'tags.js', type: 'text/javascript', body: TAGS_JS },
    { name: 'uplot.js', type: 'text/javascript', body: fromPackage('uplot/dist/uPlot.iife.min.js') },
    { name: 'charts.js', type: 'text/javascript', body: CHARTS_JS },
  ];
}
