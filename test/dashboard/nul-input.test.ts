import { describe, expect, it } from 'vitest';
import { request, type ApiResponse } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { createTag, multipart, type Part } from '../files/helpers.js';
import { CookieJar, csrfOf, get, post, signInHttp } from './support.js';

/**
 * A NUL in any dashboard input is a 400 page, on SQLite and PostgreSQL alike (PostgreSQL
 * refuses NUL in text: it was a 500). The routes are read from the server's own route table,
 * so a screen added later is covered without editing this file.
 */
describe('dashboard inputs holding NUL', () => {
  const t = useApp({ env: { SIGNUP: 'open' } });
  const alice = useAccount(t, 'pro');

  /** Every dashboard page registered for `method` (Fastify's route tree, flattened), assets aside. */
  function dashboardRoutes(method: 'GET' | 'POST'): string[] {
    const paths: string[] = [];
    const parents: string[] = [];
    for (const line of t.app.printRoutes({ commonPrefix: false, method }).split('\n')) {
      const node = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
      if (!node) continue;
      const depth = node[1]!.length / 4;
      const path = (parents[depth - 1] ?? '') + node[2]!;
      parents.length = depth;
      parents.push(path);
      if (node[3]?.split(', ').includes(method)) paths.push(path);
    }
    return paths.filter((path) => path.startsWith('/dashboard') && !path.startsWith('/dashboard/assets/'));
  }

  /** A path's parameters filled in: the refusal comes before any handler looks them up. */
  const concrete = (path: string) => path.replace(/:\w+/g, 'x1');

  function expectRefused(response: ApiResponse, where: string) {
    expect(response.status, `${where}: ${response.text.slice(0, 300)}`).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.text).toContain('<h1>Request not accepted</h1>');
    expect(response.text).toContain('holds a NUL character');
    expect(response.text).not.toContain('\u0000');
  }

  it('refuses a NUL in a form field of every POST route, naming the field', async () => {
    const routes = dashboardRoutes('POST');
    // The route table is really read: these screens' forms are among them.
    expect(routes).toEqual(expect.arrayContaining(['/dashboard/login', '/dashboard/tags/new', '/dashboard/webhooks/:id/secret']));
    expect(routes.length).toBeGreaterThan(40);
    const jar = await signInHttp(t, alice.email);
    const token = csrfOf(await get(t, '/dashboard', jar));
    for (const route of routes) {
      const response = await post(t, concrete(route), jar, { _csrf: token, name: 'Lobby\u0000sign' });
      expectRefused(response, route);
      expect(response.text).toContain('The field “name”');
    }
  });

  it('refuses a NUL in the query of every GET page', async () => {
    const routes = dashboardRoutes('GET');
    expect(routes).toEqual(expect.arrayContaining(['/dashboard', '/dashboard/tags', '/dashboard/login']));
    const jar = await signInHttp(t, alice.email);
    for (const route of routes) {
      const response = await get(t, `${concrete(route)}?page=%00`, jar);
      expectRefused(response, route);
      expect(response.text).toContain('The address parameter “page”');
    }
  });

  it('refuses the sign-in and sign-up forms signed out, and signs nobody in', async () => {
    for (const [path, fields] of [
      ['/dashboard/login', { email: `${alice.email}\u0000`, password: 'correct horse battery' }],
      ['/dashboard/signup', { email: 'new\u0000@example.com', password: 'a long password', confirm: 'a long password' }],
    ] as const) {
      const jar = new CookieJar();
      const token = csrfOf(await get(t, path, jar));
      expectRefused(await post(t, path, jar, { _csrf: token, ...fields }), path);
      expect(jar.cookies.has('tagsvc_session')).toBe(false);
    }
    const users = await t.database.db.selectFrom('users').select('email').where('email', 'like', 'new%').execute();
    expect(users).toEqual([]);
  });

  describe('multipart forms', () => {
    async function postMultipart(jar: CookieJar, path: string, parts: Part[]) {
      const { body, contentType } = multipart(parts);
      const response = await request(t, 'POST', path, {
        rawBody: body,
        headers: { 'content-type': contentType, cookie: jar.header(), origin: t.baseUrl },
      });
      jar.take(response);
      return response;
    }

    it('the tag import (parsed before the handler) refuses a NUL in its pasted text', async () => {
      const jar = await signInHttp(t, alice.email);
      const token = csrfOf(await get(t, '/dashboard/tags/import', jar));
      const response = await postMultipart(jar, '/dashboard/tags/import', [
        { name: '_csrf', value: token },
        { name: 'text', value: 'title\nNul\u0000title' },
      ]);
      expectRefused(response, 'tag import');
      expect(response.text).toContain('The field “text”');
    });

    it('the file upload (streamed) refuses a NUL in its name part, and stores nothing', async () => {
      const tag = await createTag(t, alice.key);
      const jar = await signInHttp(t, alice.email);
      const token = csrfOf(await get(t, `/dashboard/tags/${tag.id}/files`, jar));
      const response = await postMultipart(jar, `/dashboard/tags/${tag.id}/files`, [
        { name: '_csrf', value: token },
        { name: 'name', value: 'notes\u0000.txt' },
        { name: 'file', filename: 'notes.txt', content: Buffer.from('hello'), contentType: 'text/plain' },
      ]);
      expect(response.status, response.text.slice(0, 300)).toBe(400);
      expect(response.text).toContain('Name must not contain control characters.');
      expect(await t.database.db.selectFrom('files').select('id').where('tag_id', '=', tag.id).execute()).toEqual([]);
    });
  });
});
