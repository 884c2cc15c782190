import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { get, signInHttp } from './support.js';

const ASSET = /(?:href|src)="(\/dashboard\/assets\/[^"]+)"/g;

/** The stylesheet and scripts: addressed by their content, cached for good, nothing else served. */
describe('dashboard assets', () => {
  const t = useApp();
  const alice = useAccount(t, 'pro');

  it('links each asset by a hash of its bytes and serves it immutable', async () => {
    const page = await get(t, '/dashboard/analytics', await signInHttp(t, alice.email));
    const paths = [...page.text.matchAll(ASSET)].map((match) => match[1]!);
    expect(paths.map((path) => path.replace(/\.[0-9a-f]{12}\./, '.'))).toEqual([
      '/dashboard/assets/dashboard.css',
      '/dashboard/assets/htmx.min.js',
      '/dashboard/assets/dashboard.js',
      '/dashboard/assets/uplot.js',
      '/dashboard/assets/charts.js',
    ]);
    for (const path of paths) {
      const asset = await request(t, 'GET', path);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe(path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      expect(path).toContain(`.${createHash('sha256').update(asset.raw).digest('hex').slice(0, 12)}.`);
    }
  });

  it('serves the stylesheet with every area’s rules and uPlot’s, and the scripts from their packages', async () => {
    const login = await request(t, 'GET', '/dashboard/login');
    const css = /href="(\/dashboard\/assets\/dashboard\.[0-9a-f]{12}\.css)"/.exec(login.text)![1]!;
    const stylesheet = (await request(t, 'GET', css)).text;
    for (const rule of ['--accent', '.folder-tree', '.qr-frame', '.drop-zone', '.uplot', '.stat-value']) expect(stylesheet).toContain(rule);
  });

  it('answers 404 for an unknown, stale or unhashed name', async () => {
    const login = await request(t, 'GET', '/dashboard/login');
    const js = /src="\/dashboard\/assets\/(dashboard\.[0-9a-f]{12}\.js)"/.exec(login.text)![1]!;
    for (const name of ['dashboard.js', 'dashboard.000000000000.js', js.replace(/[0-9a-f]{12}/, 'ffffffffffff'), 'nothing.css']) {
      const response = await request(t, 'GET', `/dashboard/assets/${name}`);
      expect(response.status, name).toBe(404);
      expect(response.headers.get('cache-control'), name).toBe('no-store');
    }
  });
});
