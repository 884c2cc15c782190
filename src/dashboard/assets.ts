import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { PRESET_STYLES } from '../features/pages/index.js';
import { CACHED_FOR_GOOD, hashedName } from '../http/hashed-names.js';

/** A file the dashboard serves: its name (`tags.js`), address (with its content hash), media type and text. */
export interface Asset {
  name: string;
  path: string;
  type: 'text/css' | 'text/javascript';
  body: string;
}

const require = createRequire(import.meta.url);
const fromPackage = (specifier: string) => readFileSync(require.resolve(specifier), 'utf8');
/** A file of a package whose exports do not name it: found beside the file its main entry resolves to. */
const besidePackageEntry = (specifier: string, path: string) =>
  readFileSync(new URL(path, pathToFileURL(require.resolve(specifier))), 'utf8');
/** A client file of an area, beside this module: in src/ under tsx and vitest, copied into dist/ by the build. */
const clientFile = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/**
 * One stylesheet: the base, then each area's own rules (and uPlot's, for the charts; the public
 * pages' theme palettes, which the editor's theme samples are drawn in).
 */
const STYLES = [
  () => clientFile('components/frame.css'),
  () => clientFile('components/forms.css'),
  () => clientFile('components/lists.css'),
  () => clientFile('components/narrow.css'),
  () => clientFile('tags/tags.css'),
  () => PRESET_STYLES,
  () => clientFile('folders/folders.css'),
  () => clientFile('tags/import-qr.css'),
  () => clientFile('files/files.css'),
  () => clientFile('analytics/analytics.css'),
  () => clientFile('analytics/shares.css'),
  () => fromPackage('uplot/dist/uPlot.min.css'),
  () => clientFile('webhooks/webhooks.css'),
  () => clientFile('admin/admin.css'),
  () => clientFile('audit/audit.css'),
  () => clientFile('auth/two-factor.css'),
];

/** Each script by the name pages ask for it by (renderAppPage's `scripts`). */
const SCRIPTS: Record<string, () => string> = {
  'dashboard.js': () => clientFile('components/dashboard.client.js'),
  'files.js': () => clientFile('files/files.client.js'),
  'htmx.min.js': () => fromPackage('htmx.org/dist/htmx.min.js'),
  'tag-qr.js': () => clientFile('tags/tag-qr.client.js'),
  'webhooks.js': () => clientFile('webhooks/webhooks.client.js'),
  'tags.js': () => clientFile('tags/tags.client.js'),
  'uplot.js': () => fromPackage('uplot/dist/uPlot.iife.min.js'),
  'charts.js': () => clientFile('analytics/charts.client.js'),
  // The WebAuthn browser library (window.SimpleWebAuthnBrowser), for passkeys.js.
  'simplewebauthn.js': () => besidePackageEntry('@simplewebauthn/browser', '../dist/bundle/index.umd.min.js'),
  'passkeys.js': () => clientFile('auth/passkeys.client.js'),
};

function asset(name: string, type: Asset['type'], body: string): Asset {
  return { name, path: `/dashboard/assets/${hashedName(name, body)}`, type, body };
}

let loaded: Map<string, Asset> | undefined;

/**
 * Every asset, read and hashed once, at first use. Styles and scripts come from this origin only
 * (the CSP has no inline code); a screen that needs a script of its own adds it to SCRIPTS and
 * names it in renderAppPage's `scripts`.
 */
export function dashboardAssets(): Map<string, Asset> {
  loaded ??= new Map(
    [
      asset('dashboard.css', 'text/css', STYLES.map((read) => read()).join('')),
      ...Object.entries(SCRIPTS).map(([name, read]) => asset(name, 'text/javascript', read())),
    ].map((item) => [item.name, item]),
  );
  return loaded;
}

/** The address of an asset, by its name (`dashboard.css`), for the layout's links. */
export function assetPath(name: string): string {
  const found = dashboardAssets().get(name);
  if (!found) throw new Error(`No dashboard asset is named ${name}`);
  return found.path;
}

/**
 * Serves each asset at its hashed address, cached for good: a changed file has a new address,
 * so a page never meets a stale copy. Any other name under /dashboard/assets/ (an old hash, a
 * name without one) is the dashboard's 404. No session is needed: registered beside the pages,
 * outside their hooks.
 */
export async function assetRoutes(app: FastifyInstance) {
  for (const item of dashboardAssets().values()) {
    app.get(item.path, { schema: { hide: true } }, (_request, reply) =>
      reply
        .type(`${item.type}; charset=utf-8`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', CACHED_FOR_GOOD)
        .send(item.body),
    );
  }
}
