import { describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import * as folders from '../../src/features/folders/index.js';
import { SIGN_IN_FAILURES_PER_MINUTE } from '../../src/dashboard/auth/throttle.js';
import { request, type ApiResponse } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { createTag, upload } from '../files/helpers.js';
import { CookieJar, csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

/** Text of the page as read: the few entities the renderer writes, decoded. */
const text = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The message under the control `id` (its `<id>-error`), or undefined. */
const errorOf = (html: string, id: string) => {
  const message = new RegExp(`id="${id}-error">([^<]*)<`).exec(html)?.[1];
  return message === undefined ? undefined : text(message);
};

/** The error summary at the top of a refused form: its title and each message with what it links to. */
function summaryOf(html: string) {
  const summary = /<div class="alert alert-error error-summary" role="alert">(.*?)<\/div>/s.exec(html)?.[1];
  if (!summary) return undefined;
  const title = /<p class="error-summary-title">(.*?)<\/p>/s.exec(summary)![1]!.replace(/<!-- -->/g, '');
  const items = [...summary.matchAll(/<li>(?:<a href="#([^"]+)">)?([^<]*)/g)].map(([, target, message]) => ({
    target,
    message: text(message!),
  }));
  return { title, items };
}

/** The opening tag of the control with `id`. */
const controlOf = (html: string, id: string) =>
  new RegExp(`<(?:input|select|textarea|fieldset)[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0] ?? '';

/**
 * Each message is under its field (the control marked invalid and described by it) and, linked
 * to that control, in the summary above the form, in the page's order. `expected` maps each
 * message's id (`<id>-error`) to it; the control's id is the same, unless `controls` says
 * otherwise (a webhook's header row).
 */
function expectEveryProblem(response: ApiResponse, intro: string, expected: Record<string, string>, controls: Record<string, string> = {}) {
  expect(response.status, response.text.slice(0, 300)).toBe(400);
  const controlId = (id: string) => controls[id] ?? id;
  for (const [id, message] of Object.entries(expected)) {
    expect(errorOf(response.text, id), id).toBe(message);
    const control = controlOf(response.text, controlId(id));
    if (!control.startsWith('<fieldset')) expect(control, id).toContain('aria-invalid="true"');
    expect(control, id).toMatch(new RegExp(`aria-describedby="[^"]*\\b${id}-error\\b`));
  }
  const count = Object.keys(expected).length;
  expect(summaryOf(response.text)).toEqual({
    title: `${intro} Fix these ${count} problems:`,
    items: Object.entries(expected).map(([id, message]) => ({ target: controlId(id), message })),
  });
}

/**
 * The dashboard's forms report every problem of a submission at once, each under its field and
 * all in a summary at the top, instead of one per attempt; nothing is written.
 */
describe('dashboard form errors', () => {
  const holder = useBrowser();
  const t = useApp({ env: { SIGNUP: 'open' } });
  const alice = useAccount(t, 'pro');
  const actor = () => accounts.actorOfUser({ ...alice, plan: 'pro' });

  it('sign-up: the email, the password rule and the confirmation together', async () => {
    const jar = new CookieJar();
    const form = await get(t, '/dashboard/signup', jar);
    const response = await post(t, '/dashboard/signup', jar, {
      _csrf: csrfOf(form),
      email: alice.email,
      password: 'short',
      confirm: 'other',
    });
    expectEveryProblem(response, 'No account was created.', {
      'field-email': `A user with email ${alice.email} already exists.`,
      'field-password': 'Password must be at least 8 characters.',
      'field-confirm': 'The two passwords do not match.',
    });
    expect(jar.cookies.get('tagsvc_session')).toBeUndefined();
  });

  it('password change: a wrong current password beside the new one’s problems', async () => {
    const jar = await signInHttp(t, alice.email);
    const page = await get(t, '/dashboard/account', jar);
    const response = await post(t, '/dashboard/account/password', jar, {
      _csrf: csrfOf(page),
      current_password: 'not my password',
      new_password: 'short',
      confirm: 'different',
    });
    expectEveryProblem(response, 'Your password was not changed.', {
      'field-current_password': 'The current password is not correct.',
      'field-new_password': 'Password must be at least 8 characters.',
      'field-confirm': 'The two passwords do not match.',
    });
    // The password is unchanged: signing in with it still works.
    await signInHttp(t, alice.email);
  });

  it('new key and key edit: the name, the permissions and the allow list together', async () => {
    const jar = await signInHttp(t, alice.email);
    const page = await get(t, '/dashboard/keys', jar);
    const before = await accounts.listAdministeredKeys(t.services, actor(), { limit: 100, offset: 0 });
    const problems = { name: ' ', ip: '10.0.0.1, not-an-address' };
    const expected = {
      'field-name': 'Name must be 1-255 characters.',
      'field-permissions': 'Choose at least one permission.',
      'field-ip': '"not-an-address" is not an IP address or CIDR range.',
    };
    const created = await post(t, '/dashboard/keys', jar, { _csrf: csrfOf(page), ...problems, environment: 'live' });
    expectEveryProblem(created, 'No key was created.', expected);
    expect((await accounts.listAdministeredKeys(t.services, actor(), { limit: 100, offset: 0 })).total).toBe(before.total);

    const key = await accounts.createKey(t.services, actor(), { name: 'ci', permissions: ['tags:read'] });
    const edited = await post(t, `/dashboard/keys/${key.id}/edit`, jar, { _csrf: csrfOf(page), ...problems });
    expectEveryProblem(edited, 'Nothing was changed.', expected);
    expect((await accounts.getKey(t.services, actor(), { id: key.id })).name).toBe('ci');
  });

  it('new webhook: the name, the URL, the events and a header together', async () => {
    const jar = await signInHttp(t, alice.email);
    const page = await get(t, '/dashboard/webhooks/new', jar);
    const response = await post(t, '/dashboard/webhooks', jar, {
      _csrf: csrfOf(page),
      name: '  ',
      url: 'ftp://example.com/hook',
      header_name: 'Bad Header',
      header_value: 'x',
    });
    // The header row's message is linked to the row's name.
    expectEveryProblem(
      response,
      'Nothing was saved.',
      {
        'field-name': 'Name must not be empty.',
        'field-url': 'URL must be an https:// URL.',
        'field-events': 'Choose at least one event.',
        'header-0': 'Bad Header is not a valid header name.',
      },
      { 'header-0': 'header-0-name' },
    );
  });

  it('folder: a blank name and a folder inside itself together', async () => {
    const parent = await folders.createFolder(t.services, actor(), { name: 'Parent' });
    const child = await folders.createFolder(t.services, actor(), { name: 'Child', parent_id: parent.id });
    const jar = await signInHttp(t, alice.email);
    const page = await get(t, `/dashboard/folders/${parent.id}`, jar);
    const response = await post(t, `/dashboard/folders/${parent.id}`, jar, { _csrf: csrfOf(page), name: ' ', parent_id: child.id });
    expectEveryProblem(response, 'The folder was not changed.', {
      'field-name': 'Name must not be empty.',
      'field-parent_id': 'A folder cannot be placed inside itself or its subfolders.',
    });
    expect(await folders.getFolder(t.services, actor(), { id: parent.id })).toMatchObject({ name: 'Parent', parent_id: null });
  });

  it('file: its name and its description together', async () => {
    const tag = await createTag(t, alice.key);
    const uploaded = await upload(t, alice.key, tag.id, 'notes.txt', Buffer.from('notes'));
    const fileId = uploaded.body.data.id as string;
    const jar = await signInHttp(t, alice.email);
    const address = `/dashboard/tags/${tag.id}/files/${fileId}/edit`;
    const page = await get(t, address, jar);
    const response = await post(t, address, jar, { _csrf: csrfOf(page), name: 'a/b.txt', description: 'd'.repeat(2001) });
    expectEveryProblem(response, 'Nothing was saved.', {
      'field-name': 'Name must not contain / or \\.',
      'field-description': 'Description must be at most 2000 characters.',
    });
    expect((await request(t, 'GET', `/v1/files/${fileId}`, { key: alice.key })).body.data.name).toBe('notes.txt');
  });

  it('new tag: each setting the form did not offer', async () => {
    const jar = await signInHttp(t, alice.email);
    const page = await get(t, '/dashboard/tags/new', jar);
    const response = await post(t, '/dashboard/tags/new', jar, { _csrf: csrfOf(page), title: 'Forged', read: 'everyone', write: 'anyone' });
    expectEveryProblem(response, 'No tag was created.', {
      'field-read': 'Choose who may open the page.',
      'field-write': 'Choose who may edit the tag.',
    });
  });

  it('in the browser: the summary is announced, links to each field, and the page stays accessible', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/webhooks/new`);
    await page.getByLabel('Name').fill(' ');
    await page.getByLabel('URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Create Webhook' }).first().click();
    const summary = page.getByRole('alert').filter({ hasText: 'Fix these 3 problems' });
    await summary.waitFor();
    for (const message of ['Name must not be empty.', 'Choose at least one event.']) {
      await expect(page.getByText(message, { exact: true }).count()).resolves.toBe(2);
    }
    await summary.getByRole('link', { name: 'URL must be an https:// URL.' }).click();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('field-url');
    await expectAccessible(page);
    await screenshots(page, 'form-errors');
    expect(problems).toEqual([]);
    await context.close();
  });

  describe('throttling', () => {
    // An app of its own: the failures it counts would throttle the other tests' sign-ins.
    const own = useApp();
    const carol = useAccount(own, 'pro');

    it('password change: a guess sent with a mismatched confirmation is throttled like any other', async () => {
      const jar = await signInHttp(own, carol.email);
      const page = await get(own, '/dashboard/account', jar);
      const guess = () =>
        post(own, '/dashboard/account/password', jar, {
          _csrf: csrfOf(page),
          current_password: 'a guess',
          new_password: 'the next password',
          confirm: 'mismatched',
        });
      for (let i = 0; i < SIGN_IN_FAILURES_PER_MINUTE; i++) {
        const answer = await guess();
        expect(errorOf(answer.text, 'field-current_password')).toBe('The current password is not correct.');
      }
      expect((await guess()).status).toBe(429);
    });
  });
});
