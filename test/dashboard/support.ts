import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { request, type ApiResponse, type TestApp } from '../helpers/app.js';

/** Plain-HTTP access to the dashboard, as a browser without JavaScript (or an attacker) would. */

export const PASSWORD = 'correct horse battery';

/** The cookies a client holds, by name; Set-Cookie headers update it. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  take(response: ApiResponse): void {
    const raw = response.headers.get('set-cookie');
    if (!raw) return;
    // Node joins several Set-Cookie headers with ", "; attributes never contain one here.
    for (const cookie of raw.split(/, (?=[a-z_]+=)/)) {
      const [pair] = cookie.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (/max-age=0/i.test(cookie) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

export async function get(t: TestApp, path: string, jar: CookieJar): Promise<ApiResponse> {
  const response = await request(t, 'GET', path, { headers: jar.cookies.size ? { cookie: jar.header() } : {} });
  jar.take(response);
  return response;
}

/** The form token on a page. */
export function csrfOf(response: ApiResponse): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(response.text);
  if (!match) throw new Error(`no form token in ${response.status} ${response.text.slice(0, 300)}`);
  return match[1]!;
}

/** A form POST; same-origin by default, as the browser would send it from the page. */
export async function post(
  t: TestApp,
  path: string,
  jar: CookieJar,
  fields: Record<string, string>,
  headers: Record<string, string> = { origin: t.baseUrl },
): Promise<ApiResponse> {
  const response = await request(t, 'POST', path, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(jar.cookies.size ? { cookie: jar.header() } : {}), ...headers },
  });
  jar.take(response);
  return response;
}

/** Signs in over plain HTTP; returns the jar holding the session cookie. */
export async function signInHttp(t: TestApp, email: string, password = PASSWORD): Promise<CookieJar> {
  const jar = new CookieJar();
  const form = await get(t, '/dashboard/login', jar);
  const response = await post(t, '/dashboard/login', jar, { _csrf: csrfOf(form), email, password });
  expect(response.status, response.text.slice(0, 300)).toBe(303);
  expect(jar.cookies.get('tagsvc_session')).toBeTruthy();
  return jar;
}

/** Whether the jar's session is signed in: the home page shows, instead of a redirect to sign-in. */
export async function isSignedIn(t: TestApp, jar: CookieJar): Promise<boolean> {
  const response = await get(t, '/dashboard', jar);
  if (response.status === 200) return true;
  expect(response.status).toBe(303);
  expect(response.headers.get('location')).toBe('/dashboard/login');
  return false;
}

/** Fills the first-run or sign-up form and sends it. */
export async function submitNewAccount(page: Page, email: string, password: string, confirm = password): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(confirm);
  await page.getByRole('button', { name: 'Create account' }).click();
}

/** Signs in through the browser's form. */
export async function signInBrowser(page: Page, baseUrl: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
}

/**
 * The CSP violations and script errors a page reports (a test expects none). Chromium also
 * logs every 4xx answer as "Failed to load resource", which forms that re-render with an error
 * do on purpose: those are left out.
 */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/** The status `GET /v1/me` answers with this key value. */
export async function meStatus(t: TestApp, key: string): Promise<number> {
  return (await request(t, 'GET', '/v1/me', { key })).status;
}

/**
 * Screenshots of the page (desktop, phone at 375 px, dark), written only when SCREENSHOT_DIR is
 * set, as `<dir>/<name>-desktop.png` and so on; the page's viewport and scheme are restored.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  const viewport = page.viewportSize();
  await page.screenshot({ path: `${dir}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 375, height: 812 });
  await page.screenshot({ path: `${dir}/${name}-phone.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: `${dir}/${name}-dark-phone.png`, fullPage: true });
  if (viewport) await page.setViewportSize(viewport);
  await page.screenshot({ path: `${dir}/${name}-dark.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
}
