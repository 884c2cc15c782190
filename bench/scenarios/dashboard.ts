import { performance } from 'node:perf_hooks';
import { api } from '../lib/api.js';
import { latencyMetrics, type Metric } from '../lib/metrics.js';
import { progress } from '../lib/measure.js';
import type { MetricsScenario } from '../lib/scenario.js';

const KEYS = 1000;
const TAGS = 10_000;
const REQUESTS_PER_PAGE = 200;
const P95_TARGET_MS = 50;
/** Tags of the account that are in one folder (the tag list's folder filter shows them). */
const TAGS_IN_FOLDER = 1000;
/**
 * The pages the dashboard has, each asked for REQUESTS_PER_PAGE times, one after another. The
 * tag list three ways: its first page, a search (its titles contain "tag 99": 111 tags, found by
 * reading every title of the account) and the folder filter.
 */
const pagesOf = (folderId: string) => [
  '/dashboard',
  '/dashboard/keys',
  '/dashboard/organizations',
  '/dashboard/account',
  '/dashboard/tags',
  '/dashboard/tags?q=tag+99',
  `/dashboard/tags?folder=${folderId}`,
];

/** A browser's cookies, enough for the dashboard's session and form-token cookies. */
export class Cookies {
  private readonly values = new Map<string, string>();
  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair!.indexOf('=');
      this.values.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
}

export async function page(baseUrl: string, cookies: Cookies, path: string): Promise<string> {
  const response = await fetch(new URL(path, baseUrl), { headers: { cookie: cookies.header() }, redirect: 'manual' });
  cookies.take(response);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return text;
}

export async function submit(
  baseUrl: string,
  cookies: Cookies,
  path: string,
  form: string,
  fields: Array<[string, string]>,
): Promise<void> {
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form)?.[1];
  if (!csrf) throw new Error(`no form token on the page before POST ${path}`);
  const response = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { cookie: cookies.header(), origin: new URL(baseUrl).origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([['_csrf', csrf], ...fields]),
    redirect: 'manual',
  });
  cookies.take(response);
  await response.text();
  if (response.status >= 400) throw new Error(`POST ${path} answered ${response.status}`);
}

/** The page asked for `requests` times one after another, after 10 unmeasured: each answer's time in ms. */
export async function timePage(baseUrl: string, cookies: Cookies, path: string, requests: number): Promise<number[]> {
  for (let i = 0; i < 10; i++) await page(baseUrl, cookies, path);
  const timings: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await page(baseUrl, cookies, path);
    timings.push(performance.now() - started);
  }
  return timings;
}

/**
 * Every dashboard page for an account with 1,000 API keys and 10,000 tags (#9's target: p95 at
 * most 50 ms). The account signs in like a browser; keys are created through the API Keys form,
 * tags through the batch API.
 */
export const dashboardPages: MetricsScenario = {
  kind: 'metrics',
  name: 'dashboard-pages',
  description: `the dashboard's pages, ${REQUESTS_PER_PAGE} GETs each one after another, signed in to an account with ${KEYS.toLocaleString('en-US')} keys and ${TAGS.toLocaleString('en-US')} tags`,
  variant: 'default',
  async run({ baseUrl, createAccount }) {
    const account = await createAccount('enterprise');
    const cookies = new Cookies();
    await submit(baseUrl, cookies, '/dashboard/login', await page(baseUrl, cookies, '/dashboard/login'), [
      ['email', account.email],
      ['password', 'bench-password'],
    ]);
    const folder = await api<{ id: string }>(baseUrl, account.key, 'POST', '/v1/folders', { body: { name: 'Bench folder' } });
    for (let made = 0; made < TAGS; made += 100) {
      const tags = Array.from({ length: 100 }, (_, i) => ({
        title: `Dashboard bench tag ${made + i}`,
        ...(made + i < TAGS_IN_FOLDER ? { folder_id: folder.id } : {}),
      }));
      await api(baseUrl, account.key, 'POST', '/v1/tags/batch', { body: { tags } });
    }
    progress(`dashboard-pages: ${TAGS} tags created`);
    const form = await page(baseUrl, cookies, '/dashboard/keys');
    // The account's own CLI key is the first; the form makes the rest.
    for (let made = 1; made < KEYS; made++) {
      await submit(baseUrl, cookies, '/dashboard/keys', form, [
        ['name', `bench key ${made}`],
        ['permissions', 'tags:read'],
        ['permissions', 'analytics:read'],
      ]);
    }
    progress(`dashboard-pages: ${KEYS} keys created`);
    const keysPage = await page(baseUrl, cookies, '/dashboard/keys');
    if (!keysPage.includes(`of ${KEYS.toLocaleString('en-US')}`)) throw new Error(`the API Keys page does not count ${KEYS} keys`);

    const tagsPage = await page(baseUrl, cookies, '/dashboard/tags');
    if (!tagsPage.includes(`of ${TAGS.toLocaleString('en-US')}`)) throw new Error(`the tag list does not count ${TAGS} tags`);

    const metrics: Metric[] = [];
    for (const path of pagesOf(folder.id)) {
      // The folder's id differs every run; the metric's name must not.
      const name = `GET ${path.replace(/fld_[0-9a-z]+/, '{folder}')}`;
      metrics.push(...latencyMetrics(name, await timePage(baseUrl, cookies, path, REQUESTS_PER_PAGE), { p95: P95_TARGET_MS }));
    }
    return { metrics, details: { keys: KEYS, tags: TAGS, tagsInFolder: TAGS_IN_FOLDER, requestsPerPage: REQUESTS_PER_PAGE } };
  },
};
