import { describe, expect, it } from 'vitest';
import { request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { watchConsole } from '../dashboard/support.js';

/** The one CSP refusal the page is expected to log: Redoc's footer logo, on its CDN (api-reference.ts). */
const REFUSED_LOGO = "Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg' violates the following Content Security Policy";

/** `content-security-policy` as its directives: `script-src` → ["'self'"]. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

describe('the API reference at /docs', () => {
  const t = useApp();
  const holder = useBrowser();

  it('redirects /docs/, the old address, to /docs', async () => {
    const response = await request(t, 'GET', '/docs/');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/docs');
  });

  it('allows scripts from this origin only, and styles only with a nonce fresh for each page', async () => {
    const first = await request(t, 'GET', '/docs');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const csp = first.headers.get('content-security-policy')!;
    expect(csp).not.toContain('unsafe-');
    const policy = directives(csp);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    const nonce = /'nonce-([^']+)'/.exec(policy.get('style-src')!.join(' '))![1];
    // The start-up script hands Redoc the nonce from its own tag.
    expect(first.text).toContain(`nonce="${nonce}"`);
    expect(first.text).not.toMatch(/<script(?![^>]*\ssrc=)/);
    const second = await request(t, 'GET', '/docs');
    expect(second.headers.get('content-security-policy')).not.toContain(nonce);
  });

  it('serves its stylesheet and scripts from this origin, cached for a year under their hash', async () => {
    const page = (await request(t, 'GET', '/docs')).text;
    const files = [...page.matchAll(/(?:href|src)="(\/docs\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(files.map((path) => path.replace(/\.[0-9a-f]{12}\./, '.'))).toEqual([
      '/docs/assets/api-reference.css',
      '/docs/assets/redoc.standalone.js',
      '/docs/assets/api-reference.js',
    ]);
    for (const path of files) {
      const response = await request(t, 'GET', path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/(css|javascript); charset=utf-8$/);
      expect(response.headers.get('cache-control'), path).toBe('public, max-age=31536000, immutable');
    }
    const stale = await request(t, 'GET', '/docs/assets/redoc.standalone.000000000000.js');
    expect(stale.status).toBe(404);
  });

  // Redoc lays out every operation at once (some 14,000 elements): axe's colour-contrast rule
  // alone takes over 10 s on them on a busy machine, past the suite's 30 s default.
  const AXE_TIMEOUT = 120_000;

  for (const width of [1280, 375]) {
    it(
      `renders the operations at ${width} px, with no serious accessibility problem, nothing refused but the logo`,
      { timeout: AXE_TIMEOUT },
      async () => {
        const { context, page } = await newPage(holder.browser, { viewport: { width, height: 900 } });
        try {
          const problems = watchConsole(page);
          const elsewhere: string[] = [];
          // A blob: URL (the search worker's) has the origin of the page that made it.
          page.on('response', (response) => {
            if (new URL(response.url()).origin !== t.baseUrl) elsewhere.push(response.url());
          });
          await page.goto(`${t.baseUrl}/docs`);
          await page.getByRole('heading', { name: 'List tags' }).waitFor();
          await page.getByText('/v1/tags', { exact: true }).first().waitFor();

          await expectAccessible(page);
          const { scrollWidth, innerWidth } = await page.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
          }));
          expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
          expect(problems.filter((problem) => !problem.startsWith(REFUSED_LOGO))).toEqual([]);
          expect(elsewhere).toEqual([]);
          if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/api-reference-${width}.png` });
        } finally {
          await context.close();
        }
      },
    );
  }

  it('finds operations with its search, whose index runs in a worker the CSP allows', async () => {
    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 } });
    try {
      const problems = watchConsole(page);
      await page.goto(`${t.baseUrl}/docs`);
      await page.getByRole('heading', { name: 'List tags' }).waitFor();
      await page.getByPlaceholder('Search...').fill('deliveries');
      await page
        .getByRole('menuitem', { name: /deliveries/i })
        .first()
        .waitFor();
      expect(problems.filter((problem) => !problem.startsWith(REFUSED_LOGO))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
