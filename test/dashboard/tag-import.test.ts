import { describe, expect, it } from 'vitest';
import * as folders from '../../src/features/folders/index.js';
import { request, type Account, actorOf } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { CookieJar, csrfOf, get, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

/** Importing tags from CSV and JSON: one batch of the API, every row's problems at once, all or nothing. */
describe('dashboard tag import', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');

  /** Every tag of the account, through the API. */
  const tagsOf = async (account: Account) => {
    const list = await request(t, 'GET', '/v1/tags?limit=100&sort=title&order=asc', { key: account.key });
    expect(list.status).toBe(200);
    return list.body.data as Array<{ id: string; title: string; folder_id: string | null }>;
  };
  const fullTag = async (account: Account, id: string) => (await request(t, 'GET', `/v1/tags/${id}`, { key: account.key })).body.data;

  /** The import form sent as a browser sends it: multipart, with the file or the pasted text. */
  async function postImport(jar: CookieJar, parts: { file?: { name: string; text: string }; text?: string; csrf?: string }) {
    const form = new FormData();
    form.set('_csrf', parts.csrf ?? csrfOf(await get(t, '/dashboard/tags/import', jar)));
    form.set('file', new Blob([parts.file?.text ?? ''], { type: 'application/octet-stream' }), parts.file?.name ?? '');
    form.set('text', parts.text ?? '');
    const encoded = new Request('http://localhost/', { method: 'POST', body: form });
    return request(t, 'POST', '/dashboard/tags/import', {
      rawBody: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type')!, cookie: jar.header(), origin: t.baseUrl },
    });
  }

  /** The rows of the Problems table: [row, field, problem]. */
  const problemRows = (html: string) =>
    [
      ...html.matchAll(
        /<tr><th scope="row" data-label="(?:Row|Item)">(\d+)<\/th><td data-label="Field">(.*?)<\/td><td data-label="Problem">(.*?)<\/td><\/tr>/g,
      ),
    ].map((m) => [Number(m[1]), m[2]!.replace(/<[^>]+>/g, ''), m[3]!]);

  it('imports a CSV of 3 rows from the browser, and a bad CSV creates none and shows each row’s problems', async () => {
    const folder = await folders.createFolder(t.services, actorOf(alice), { name: 'Lobby' });
    const othersFolder = await folders.createFolder(t.services, actorOf(bob), { name: 'Bob’s' });
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags/import`);
    await expectAccessible(page);
    await expect(page.getByRole('rowheader', { name: 'access_logging' }).isVisible()).resolves.toBe(true);

    const csv = [
      'title,content,folder_id,read,write,access_logging',
      `Welcome desk,"<h2>Hi</h2><p>Ask us <script>alert(1)</script>anything.</p>",${folder.id},public,owner,true`,
      'Room 101,"Projector, 12 seats",,private,,',
      '"Staff ""notes""",,,,,no',
    ].join('\n');
    await page.getByLabel('CSV or JSON file').setInputFiles({ name: 'tags.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import Tags' }).click();
    await page.getByText('3 tags created.').waitFor();
    const created = await tagsOf(alice);
    expect(created.map((tag) => tag.title)).toEqual(['Room 101', 'Staff "notes"', 'Welcome desk']);
    const welcome = await fullTag(alice, created.find((tag) => tag.title === 'Welcome desk')!.id);
    expect(welcome.folder_id).toBe(folder.id);
    expect(welcome.access_logging).toBe(true);
    expect(welcome.content).toHaveLength(1);
    expect(welcome.content[0].type).toBe('html');
    expect(welcome.content[0].content).toContain('<h2>Hi</h2>');
    expect(welcome.content[0].content).not.toContain('script');
    const room = await fullTag(alice, created.find((tag) => tag.title === 'Room 101')!.id);
    expect(room.permissions).toEqual({ read: 'private', write: 'owner' });
    expect(room.content[0].content).toContain('Projector, 12 seats');
    await expect(page.getByRole('link', { name: 'Welcome desk' }).getAttribute('href')).resolves.toBe(`/dashboard/tags/${welcome.id}`);
    await expectAccessible(page);
    await screenshots(page, 'import-created');

    const bad = [
      'title,read,folder_id,access_logging',
      'Fine one,public,,',
      '   ,public,,',
      'Bad read,everyone,,',
      `Foreign folder,,${othersFolder.id},maybe`,
    ].join('\n');
    await page.getByLabel('CSV or JSON file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Import Tags' }).click(),
    ]);
    expect(answer.status()).toBe(400);
    await page.getByText('Nothing was imported: 3 rows have problems.', { exact: false }).waitFor();
    expect(problemRows(await page.content())).toEqual([
      [3, 'title', 'Must not be empty.'],
      [4, 'read', 'Must be one of public, organization, private.'],
      [5, 'access_logging', 'Must be true or false (or yes/no, 1/0), or empty.'],
      [5, 'folder_id', 'Does not name one of your folders.'],
    ]);
    expect(await tagsOf(alice)).toHaveLength(3);
    await expectAccessible(page);
    await screenshots(page, 'import-problems');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('imports the JSON batch body or an array, pasted, with the schema’s and the service’s problems per item', async () => {
    const jar = await signInHttp(t, bob.email);
    const body = {
      tags: [
        { title: 'From JSON', content: [{ type: 'text', content: 'Hello' }] },
        { title: 'Second', access_logging: true },
      ],
    };
    const ok = await postImport(jar, { text: JSON.stringify(body) });
    expect(ok.status, ok.text.slice(0, 500)).toBe(200);
    expect(ok.text).toContain('2 tags created.');
    const array = await postImport(jar, { file: { name: 'tags.json', text: JSON.stringify([{ title: 'From array' }]) } });
    expect(array.text).toContain('1 tag created.');
    expect((await tagsOf(bob)).map((tag) => tag.title)).toEqual(['From array', 'From JSON', 'Second']);

    const wrong = await postImport(jar, {
      text: JSON.stringify([
        { title: 'ok' },
        { title: 5 },
        { title: 'x', readPermission: 'everyone', colour: 'red' },
        { content: 'no title' },
        { title: 'bad blocks', content: [{ type: 'heading', content: 'x', level: 9 }] },
        { title: 'nul \u0000 title' },
      ]),
    });
    expect(wrong.status).toBe(400);
    const rows = problemRows(wrong.text);
    expect(rows.map(([row, field]) => `${row} ${field}`)).toEqual([
      '2 title',
      '3 colour',
      '3 readPermission',
      '4 title',
      '5 content[0].level',
      '6 title',
    ]);
    expect(rows[0]![2]).toBe('Must be string.');
    expect(rows[3]![2]).toBe('Required.');
    expect(wrong.text).toContain('Item');
    expect(await tagsOf(bob)).toHaveLength(3);
  });

  it('refuses files it cannot take as a whole: empty, unreadable, unknown column, too many tags, too large', async () => {
    const jar = await signInHttp(t, bob.email);
    const before = (await tagsOf(bob)).length;
    const fileError = async (parts: Parameters<typeof postImport>[1]) => {
      const answer = await postImport(jar, parts);
      expect(answer.status).toBe(400);
      return /id="field-file-error">([^<]*)</.exec(answer.text)?.[1];
    };
    expect(await fileError({})).toBe('Choose a CSV or JSON file, or paste its text.');
    expect(await fileError({ text: '{"tags": [' })).toMatch(/^The file is not valid JSON/);
    expect(await fileError({ text: 'title,colour\nA,red' })).toBe(
      'Unknown column “colour”. Columns: title, content, folder_id, read, write, access_logging.',
    );
    expect(await fileError({ text: 'title\n"unclosed' })).toMatch(/^The CSV could not be read/);
    expect(await fileError({ text: 'title\n' })).toBe('The file has a header but no rows.');
    const many = ['title', ...Array.from({ length: 101 }, (_, i) => `Tag ${i}`)].join('\n');
    expect(await fileError({ file: { name: 'many.csv', text: many } })).toBe(
      'The file holds 101 tags; one import takes at most 100. Split it into several files.',
    );
    const large = `title,content\nBig,"${'x'.repeat(1024 * 1024)}"`;
    expect(await fileError({ file: { name: 'big.csv', text: large } })).toBe('The file is over 1 MB: split it into several files.');
    expect(await tagsOf(bob)).toHaveLength(before);

    // The example offered for download is a real file that imports as it is.
    const example = await get(t, '/dashboard/tags/import/example.csv', jar);
    expect(example.status).toBe(200);
    expect(example.headers.get('content-disposition')).toBe('attachment; filename="tags-example.csv"');
    const imported = await postImport(jar, { file: { name: 'tags-example.csv', text: example.text } });
    expect(imported.text).toContain('3 tags created.');
    expect(await tagsOf(bob)).toHaveLength(before + 3);
  });

  it('refuses an upload without the form token, and sends a signed-out browser to sign in', async () => {
    const jar = await signInHttp(t, alice.email);
    const before = (await tagsOf(alice)).length;
    const refused = await postImport(jar, { csrf: 'forged', text: 'title\nSneaky' });
    expect(refused.status).toBe(403);
    expect(await tagsOf(alice)).toHaveLength(before);
    const anonymous = await get(t, '/dashboard/tags/import', new CookieJar());
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/dashboard/login');
  });
});
