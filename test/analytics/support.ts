import { sql } from 'kysely';
import { expect } from 'vitest';
import { isPostgres, type Db } from '../../src/db/database.js';
import type { ViewsTable } from '../../src/db/schema.js';
import { newId } from '../../src/lib/ids.js';
import { closeVisitorDays } from '../../src/features/analytics/sealing.js';
import { DistinctVisitors } from '../../src/features/analytics/visitor-sets.js';
import { request, type ApiResponse, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';

/**
 * Shared by the analytics tests: a server that takes the client address from X-Forwarded-For
 * (so views come from known places), real browser and bot user agents, and page visits placed
 * at exact instants with the test clock.
 */

/** useApp for these tests: the suite's server, taking client addresses from X-Forwarded-For. */
export function useAnalyticsApp(env: Record<string, string> = {}): TestApp {
  return useApp({ env: { TRUST_PROXY: 'loopback', ...env } });
}

/** Real user agents and what the service must make of them. */
export const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:123.0) Gecko/20100101 Firefox/123.0',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 Edg/122.0.2365.80',
  opera: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36 OPR/107.0.0.0',
  samsung:
    'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
  yandex:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 YaBrowser/24.1.0.0 Safari/537.36',
  vivaldi:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 Vivaldi/6.6.3271.45',
  ucbrowser:
    'Mozilla/5.0 (Linux; U; Android 10; en-US; RMX2020 Build/QP1A.190711.020) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.108 UCBrowser/13.4.0.1306 Mobile Safari/537.36',
  ie: 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko',
  /** A browser nobody recognizes: counted, browser and os "Other". */
  unknown: 'Mozilla/5.0 (compatible; Unknown)',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  curl: 'curl/8.0.1',
} as const;

/** Addresses in the bundled DB-IP data (checked against geo.locate() in recording.test.ts). */
export const IP = {
  london: '81.2.69.142',
  mountainView: '8.8.8.8',
  sydney: '1.1.1.1',
  /** Loopback: no location. */
  local: '127.0.0.1',
  ipv6Montreal: '2001:4860:4860::8888',
} as const;

export interface Visit {
  /** ISO instant the view happens at (the clock is frozen there first). */
  at?: string;
  /** /s/ (the QR scan address) instead of /t/. */
  scan?: boolean;
  /** null: no User-Agent header at all. Default: iPhone Safari. */
  ua?: string | null;
  /** Client address via X-Forwarded-For; none: the loopback socket address. */
  ip?: string;
  /** Visitor id sent as the tsv cookie. */
  visitor?: string;
  referer?: string;
  method?: 'GET' | 'HEAD';
  /** The page address's query string, without the `?` (utm_source=…). */
  query?: string;
}

export interface VisitResult {
  response: ApiResponse;
  /** The beacon token embedded in the page (data-view), undefined when the page has none. */
  token: string | undefined;
}

/** One page request as a browser (or bot) would make it. */
export async function visit(t: TestApp, shortId: string, v: Visit = {}): Promise<VisitResult> {
  if (v.at) t.clock.freeze(new Date(v.at));
  const headers: Record<string, string> = {};
  const ua = v.ua === undefined ? UA.iphone : v.ua;
  if (ua !== null) headers['user-agent'] = ua;
  if (v.ip) headers['x-forwarded-for'] = v.ip;
  if (v.visitor) headers.cookie = `tsv=${v.visitor}`;
  if (v.referer) headers.referer = v.referer;
  const path = `/${v.scan ? 's' : 't'}/${shortId}${v.query ? `?${v.query}` : ''}`;
  const response = await request(t, v.method ?? 'GET', path, { headers });
  const token = /data-view="([^"]+)"/.exec(response.text)?.[1];
  return { response, token };
}

/** A visit that must be answered 200 with a beacon token (a counted view). */
export async function view(t: TestApp, shortId: string, v: Visit = {}): Promise<string> {
  const { response, token } = await visit(t, shortId, v);
  expect(response.status, response.text.slice(0, 300)).toBe(200);
  expect(token, 'a counted view embeds its beacon token').toBeDefined();
  return token!;
}

/** What the page script sends: navigator.sendBeacon posts text/plain JSON. */
export function beacon(t: TestApp, token: string, durationSeconds: number | string): Promise<ApiResponse> {
  const rawBody = typeof durationSeconds === 'string' ? durationSeconds : JSON.stringify({ duration_seconds: durationSeconds });
  return request(t, 'POST', `/v/${encodeURIComponent(token)}/beacon`, { rawBody, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
}

export async function expectBeaconAccepted(t: TestApp, token: string, durationSeconds: number | string): Promise<void> {
  const response = await beacon(t, token, durationSeconds);
  expect(response.status, response.text).toBe(204);
  expect(response.text).toBe('');
}

export interface CreatedTag {
  id: string;
  short_id: string;
  title: string;
}

export async function createTag(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<CreatedTag> {
  const response = await request(t, 'POST', '/v1/tags', { key, body: { title: 'Analytics tag', ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body.data as CreatedTag;
}

/** GET with a query built from an object (undefined values left out). */
export function get(t: TestApp, key: string, path: string, query: Record<string, string | number | undefined> = {}): Promise<ApiResponse> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return request(t, 'GET', search ? `${path}?${search}` : path, { key });
}

/** GET that must succeed; returns `data`. */
export async function getData(
  t: TestApp,
  key: string,
  path: string,
  query: Record<string, string | number | undefined> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- responses are asserted field by field
): Promise<any> {
  const response = await get(t, key, path, query);
  expect(response.status, response.text).toBe(200);
  expect(response.body.success).toBe(true);
  return response.body.data;
}

/** A distinct, valid visitor cookie value per name (16+ characters of [A-Za-z0-9_-]). */
export function visitorId(name: string): string {
  return `visitor_${name}_0123456789`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Every day from `start` (inclusive) to `end` (exclusive), YYYY-MM-DD. */
export function daysBetween(start: string, end: string): string[] {
  const days: string[] = [];
  for (let ms = Date.parse(`${start}T00:00:00Z`); ms < Date.parse(`${end}T00:00:00Z`); ms += 86_400_000) {
    days.push(new Date(ms).toISOString().slice(0, 10));
  }
  return days;
}

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** A live desktop view of a personal tag, as the page records it: for tests that drive the ViewRecorder itself. */
export function viewRow(tag: { id: string; ownerId: string }, at: string, visitor: string): ViewsTable {
  return {
    id: newId('view'),
    tag_id: tag.id,
    environment: 'live',
    owner_id: tag.ownerId,
    organization_id: null,
    occurred_at: at,
    source: 'direct',
    visitor,
    device: 'desktop',
    browser: 'Chrome',
    os: 'Windows',
    country: null,
    region: null,
    city: null,
    ip_masked: null,
    user_agent: null,
    referrer: null,
    logged: 0,
    duration_seconds: null,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
  };
}

/**
 * The inbox's records in arrival order, each read back as JSON text and parsed: the binary JSON
 * they are kept as (SQLite's JSONB is a blob) would hide its text from a search of its bytes.
 */
export async function inboxRecords(db: Db): Promise<unknown[][]> {
  const text = isPostgres(db) ? sql<string>`records::text` : sql<string>`json(records)`;
  const rows = await db.selectFrom('view_inbox').select(text.as('text')).orderBy('seq').execute();
  return rows.flatMap((row) => JSON.parse(row.text) as unknown[][]);
}

/** Periods whose ends fall on and around month edges (whole months, months cut at either end, single days at month ends, no whole month) in late 2025. */
export const MONTH_EDGE_PERIODS: Array<[string, string]> = [
  ['2025-10-01', '2026-01-06'],
  ['2025-10-15', '2025-12-15'],
  ['2025-11-01', '2025-12-01'],
  ['2025-11-01', '2026-01-01'],
  ['2025-10-31', '2025-11-02'],
  ['2025-11-30', '2025-12-02'],
  ['2025-12-02', '2025-12-31'],
];

/** Zones east and west of UTC, one of them not a whole number of hours off. */
export const REPORT_ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'];

/** Month visitor sets' rows (scope_month_visitors, tag_month_visitors) as month: [visitors, stale]. */
export function monthSetSizes(rows: Array<{ month: string; visitors: string; stale: number }>): Record<string, [number, number]> {
  return Object.fromEntries(
    rows.map((row) => {
      const visitors = new DistinctVisitors();
      visitors.addSet(row.visitors);
      return [row.month, [visitors.size, Number(row.stale)]];
    }),
  );
}

/** Runs the seal job (closeVisitorDays) as at `at`, the test clock frozen there. */
export function sealAt(t: TestApp, at: string): Promise<number> {
  t.clock.freeze(new Date(at));
  return closeVisitorDays(t.database.db, t.clock.now().getTime());
}
