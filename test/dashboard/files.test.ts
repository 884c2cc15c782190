import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { beforeAll, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { PLAN_LIMITS } from '../../src/features/accounts/index.js';
import * as files from '../../src/features/files/index.js';
import { reserveStorage } from '../../src/features/files/files.repository.js';
import * as tags from '../../src/features/tags/index.js';
import { actorOf, createAccount, request, type Account, type ApiResponse } from '../helpers/app.js';
import { describeOnce, useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { filesUnder, multipart, upload, type Part } from '../files/helpers.js';
import { image } from '../files/samples.js';
import { CookieJar, csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

const MB = 1024 * 1024;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A tag's Files page: uploads with progress, previews, editing, downloads, deletion, storage; and isolation. */
// A browser test, which CI runs once like the others (vitest.config.ts): on SQLite (describeOnce).
describeOnce('dashboard files', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');
  let aliceTag: tags.TagView;
  let bobTag: tags.TagView;

  const filesOf = async (account: Account, tagId: string, plan: 'free' | 'pro' | 'enterprise' = 'pro') =>
    (await files.listFiles(t.services, actorOf(account, plan), { tagId, limit: 100, offset: 0 })).files;
  const filesPath = (tag: { id: string }) => `/dashboard/tags/${tag.id}/files`;
  const tmpFiles = () => filesUnder(join(t.config.dataDir, 'files', 'tmp'));

  beforeAll(async () => {
    aliceTag = await tags.createTag(t.services, actorOf(alice), { title: 'Launch flyer' });
    bobTag = await tags.createTag(t.services, actorOf(bob), { title: 'Bob’s tag' });
  });

  async function openFiles(page: Page, account: Account, tag: { id: string }) {
    await signInBrowser(page, t.baseUrl, account.email);
    await page.goto(`${t.baseUrl}${filesPath(tag)}`);
  }

  /** The table row of a file, by its shown name. */
  const row = (page: Page, name: string) =>
    page.locator('#files-card tbody tr').filter({ has: page.locator('.file-name', { hasText: new RegExp(`^${name}$`) }) });

  /**
   * Waits for the upload row of `name` to say it is stored (`timeout`: as long as the file may
   * take on a loaded machine); returns the progress bar's last value.
   */
  async function uploaded(page: Page, name: string, timeout?: number): Promise<number> {
    const item = page.locator('.upload-row', { has: page.locator('.upload-name', { hasText: name }) });
    await item.locator('.upload-state', { hasText: 'Uploaded' }).waitFor({ timeout });
    return item.locator('progress').evaluate((bar) => (bar as HTMLProgressElement).value);
  }

  /** Drops files on the drop zone as a person dragging them from the desktop would. */
  async function dropFiles(page: Page, items: Array<{ name: string; type: string; data: Buffer }>) {
    const payload = items.map((item) => ({ ...item, data: item.data.toString('base64') }));
    await page.locator('.drop-zone').evaluate((zone, dropped) => {
      const transfer = new DataTransfer();
      for (const item of dropped) {
        const bytes = Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], item.name, { type: item.type }));
      }
      zone.dispatchEvent(new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, payload);
  }

  it('uploads an image from the picker with a progress bar, then previews, edits, downloads and deletes it', async () => {
    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const problems = watchConsole(page);
    await openFiles(page, alice, aliceTag);
    await expect(page.getByRole('heading', { name: 'Launch flyer' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('.tabs [aria-current="page"]').textContent()).resolves.toBe('Files');
    await expect(page.locator('#storage-card').textContent()).resolves.toContain('0 B of 1 GB used');
    await expectAccessible(page);

    const photo = await image('png', 640, 480);
    await page.locator('#upload-file').setInputFiles({ name: 'poster.png', mimeType: 'image/png', buffer: photo });
    expect(await uploaded(page, 'poster.png')).toBe(100);
    const thumb = row(page, 'poster.png').locator('img.file-thumb');
    await thumb.waitFor();
    await expect
      .poll(() => thumb.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    await expect(row(page, 'poster.png').textContent()).resolves.toContain('image/png');
    await expect.poll(() => page.locator('#storage-card').textContent()).toMatch(/\d+(\.\d)? KB of 1 GB used/);
    const [stored] = await filesOf(alice, aliceTag.id);
    expect(stored).toMatchObject({ name: 'poster.png', size: photo.length, mime_type: 'image/png' });
    await expectAccessible(page);
    await screenshots(page, 'files');

    // Rename and describe on the file's form.
    await row(page, 'poster.png').getByRole('link', { name: 'Edit' }).click();
    await page.waitForURL(`${t.baseUrl}${filesPath(aliceTag)}/${stored!.id}/edit`);
    await page.getByLabel('Name').fill('launch poster.png');
    await page.getByLabel('Description').fill('A2, for the lobby');
    await expectAccessible(page);
    await screenshots(page, 'files-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${t.baseUrl}${filesPath(aliceTag)}?done=saved`);
    await expect(row(page, 'launch poster.png').textContent()).resolves.toContain('A2, for the lobby');
    expect((await filesOf(alice, aliceTag.id))[0]).toMatchObject({ name: 'launch poster.png', description: 'A2, for the lobby' });

    // Download: the same bytes, under the new name.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row(page, 'launch poster.png').getByRole('link', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('launch poster.png');
    const path = await download.path();
    expect(sha256(readFileSync(path))).toBe(sha256(photo));

    // Delete, after the browser's confirmation.
    const questions: string[] = [];
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await row(page, 'launch poster.png').getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${t.baseUrl}${filesPath(aliceTag)}?done=deleted`);
    expect(questions).toEqual(['Delete “launch poster.png”? This cannot be undone.']);
    expect(await filesOf(alice, aliceTag.id)).toEqual([]);
    await expect(page.locator('#storage-card').textContent()).resolves.toContain('0 B of 1 GB used');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('uploads several dropped files at once, each with its own row', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Dropped' });
    const { context, page } = await newPage(holder.browser, { viewport: { width: 390, height: 844 } });
    const problems = watchConsole(page);
    await openFiles(page, alice, tag);
    const notes = Buffer.from('Opening hours\nMon-Fri 9-17\n');
    await dropFiles(page, [
      { name: 'notes.txt', type: 'text/plain', data: notes },
      { name: 'logo.webp', type: 'image/webp', data: await image('webp', 120, 120) },
    ]);
    expect(await uploaded(page, 'notes.txt')).toBe(100);
    expect(await uploaded(page, 'logo.webp')).toBe(100);
    await row(page, 'notes.txt').waitFor();
    await row(page, 'logo.webp').waitFor();
    await expect(page.locator('#files-heading').textContent()).resolves.toBe('2 files');
    expect((await filesOf(alice, tag.id)).map((file) => file.name).sort()).toEqual(['logo.webp', 'notes.txt']);
    await screenshots(page, 'files-dropped');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows each refused file with the service’s reason and stores none of them', async () => {
    const carol = await createAccount(t, 'pro');
    const tag = await tags.createTag(t.services, actorOf(carol), { title: 'Refusals' });
    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 } });
    await openFiles(page, carol, tag);
    const failure = (name: string) =>
      page.locator('.upload-row', { has: page.locator('.upload-name', { hasText: name }) }).locator('.field-error');

    // Over the plan maximum: refused before sending, in the service's words.
    const big = join(t.config.dataDir, 'huge.txt');
    closeSync(openSync(big, 'w'));
    truncateSync(big, PLAN_LIMITS.pro.maxFileBytes + 1);
    await page.locator('#upload-file').setInputFiles(big);
    await expect(failure('huge.txt').textContent()).resolves.toBe("The file exceeds your plan's maximum of 100 MB per file.");

    // A type the service does not take.
    await page
      .locator('#upload-file')
      .setInputFiles({ name: 'setup.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ') });
    await expect(failure('setup.exe').textContent()).resolves.toMatch(/^Executables/);

    // Storage full: the server's refusal.
    const limit = PLAN_LIMITS.pro.storageBytes;
    expect(await reserveStorage(t.database.db, carol.userId, 'live', limit - 10, limit, new Date().toISOString())).toBe(true);
    await page.locator('#upload-file').setInputFiles({ name: 'eleven.txt', mimeType: 'text/plain', buffer: Buffer.from('eleven byte') });
    await expect(failure('eleven.txt').textContent()).resolves.toBe(
      "This upload would exceed your plan's file storage; delete files to make room.",
    );
    // files.js reloads the meter after each answer: wait for the new one.
    await expect.poll(() => page.locator('#storage-card').textContent()).toContain('1 GB of 1 GB used');
    await screenshots(page, 'files-refused');
    expect(await filesOf(carol, tag.id)).toEqual([]);
    await vi.waitFor(() => expect(tmpFiles()).toEqual([]));
    await context.close();
  });

  it('streams a 100 MB upload to disk without holding it in memory', async () => {
    const big = await createAccount(t, 'enterprise');
    const tag = await tags.createTag(t.services, actorOf(big, 'enterprise'), { title: 'Large' });
    // Written a megabyte at a time: the test does not hold the file either.
    const path = join(t.config.dataDir, 'export.csv');
    const fd = openSync(path, 'w');
    const line = Buffer.alloc(MB, 'a,b,c\n');
    for (let i = 0; i < 100; i++) writeSync(fd, line);
    closeSync(fd);

    const { context, page } = await newPage(holder.browser, { viewport: { width: 1280, height: 900 } });
    await openFiles(page, big, tag);
    // The server runs in this process: with garbage collected, the memory it holds while the
    // upload streams must stay far below the file's size.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const held = () => {
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const before = held();
    let peak = before;
    const sampler = setInterval(() => {
      gc();
      peak = Math.max(peak, held());
    }, 250);
    // What the progress bar shows along the way (read by the test, not by the page's code).
    await page.evaluate(() => {
      const seen: number[] = [];
      Object.assign(window, { seen });
      setInterval(() => {
        const bar = document.querySelector<HTMLProgressElement>('.upload-bar');
        if (bar && seen.at(-1) !== bar.value) seen.push(bar.value);
      }, 10);
    });
    try {
      await page.locator('#upload-file').setInputFiles(path);
      expect(await uploaded(page, 'export.csv', 150_000)).toBe(100);
    } finally {
      clearInterval(sampler);
    }
    const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
    expect(seen.some((value) => value > 0 && value < 100)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // Buffering the body would hold at least its 100 MB; streaming holds chunks (under 1 MB
    // here, up to 34 MB seen once under CI load for a 50 MB file).
    expect(peak - before).toBeLessThan(50 * MB);
    const [stored] = await filesOf(big, tag.id, 'enterprise');
    expect(stored).toMatchObject({ name: 'export.csv', size: 100 * MB });
    await context.close();
  }, 180_000);

  it('works without scripts: the plain form uploads one file, and the list pages', async () => {
    const dave = await createAccount(t, 'pro');
    const tag = await tags.createTag(t.services, actorOf(dave), { title: 'No scripts' });
    for (let i = 1; i <= 26; i++) {
      const name = `note-${String(i).padStart(2, '0')}.txt`;
      const response = await upload(t, dave.key, tag.id, name, Buffer.from(`${name}\n`));
      expect(response.status).toBe(201);
    }
    const { context, page } = await newPage(holder.browser, { javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    await openFiles(page, dave, tag);
    await expect(page.locator('#files-heading').textContent()).resolves.toBe('26 files');
    await expect(page.locator('#files-card tbody tr').count()).resolves.toBe(25);
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(`${t.baseUrl}${filesPath(tag)}?page=2`);
    await expect(page.locator('#files-card tbody tr').count()).resolves.toBe(1);
    await expect(row(page, 'note-01.txt').count()).resolves.toBe(1);

    await page.locator('#upload-file').setInputFiles({ name: 'plain.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.waitForURL(`${t.baseUrl}${filesPath(tag)}?done=uploaded`);
    await expect(page.getByRole('status').textContent()).resolves.toBe('File uploaded.');
    await expect(row(page, 'plain.csv').count()).resolves.toBe(1);
    await screenshots(page, 'files-no-scripts');
    await context.close();
  });

  it('storageUsage counts the account of the tag under the actor’s plan, for the tag’s owner only', async () => {
    const erin = await createAccount(t, 'enterprise');
    const tag = await tags.createTag(t.services, actorOf(erin, 'enterprise'), { title: 'Usage' });
    const usage = () => files.storageUsage(t.services, actorOf(erin, 'enterprise'), { tagId: tag.id });
    await expect(usage()).resolves.toEqual({
      usedBytes: 0,
      limitBytes: PLAN_LIMITS.enterprise.storageBytes,
      maxFileBytes: PLAN_LIMITS.enterprise.maxFileBytes,
    });
    expect((await upload(t, erin.key, tag.id, 'a.txt', Buffer.alloc(1000, 'a'))).status).toBe(201);
    expect((await usage()).usedBytes).toBe(1000);
    await expect(files.storageUsage(t.services, actorOf(bob), { tagId: tag.id })).rejects.toMatchObject({ code: 'forbidden' });
  });

  /** A multipart POST as the browser's plain form sends it. */
  function postMultipart(path: string, jar: CookieJar, parts: Part[], headers: Record<string, string> = { origin: t.baseUrl }) {
    const { body, contentType } = multipart(parts);
    return request(t, 'POST', path, { rawBody: body, headers: { 'content-type': contentType, cookie: jar.header(), ...headers } });
  }

  it('takes an upload from the plain form only with this browser’s token, from this origin', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Plain form' });
    const jar = await signInHttp(t, alice.email);
    const token = csrfOf(await get(t, filesPath(tag), jar));
    const file = { name: 'file', filename: 'a.txt', content: Buffer.from('hello\n'), contentType: 'text/plain' };

    const refused = async (response: ApiResponse) => {
      expect(response.status, response.text.slice(0, 200)).toBe(403);
      expect(await filesOf(alice, tag.id)).toEqual([]);
    };
    await refused(await postMultipart(filesPath(tag), jar, [file]));
    await refused(await postMultipart(filesPath(tag), jar, [{ name: '_csrf', value: 'forged' }, file]));
    await refused(await postMultipart(filesPath(tag), jar, [file, { name: '_csrf', value: token }]));
    await refused(await postMultipart(filesPath(tag), jar, [file], { origin: t.baseUrl, 'x-csrf-token': 'forged' }));
    await refused(await postMultipart(filesPath(tag), jar, [{ name: '_csrf', value: token }, file], { origin: 'https://evil.example' }));
    await refused(await postMultipart(filesPath(tag), jar, [file], { origin: 'https://evil.example', 'x-csrf-token': token }));

    const sent = await postMultipart(filesPath(tag), jar, [{ name: '_csrf', value: token }, file]);
    expect(sent.status, sent.text.slice(0, 300)).toBe(303);
    expect(sent.headers.get('location')).toBe(`${filesPath(tag)}?done=uploaded`);
    expect((await filesOf(alice, tag.id)).map((f) => f.name)).toEqual(['a.txt']);
    const viaHeader = await postMultipart(filesPath(tag), jar, [{ ...file, filename: 'b.txt' }], {
      origin: t.baseUrl,
      'x-csrf-token': token,
      accept: 'application/json',
    });
    expect(viaHeader.status).toBe(201);
    expect(viaHeader.body.file.name).toBe('b.txt');

    // A refusal re-renders the page with the reason, status 400.
    const bad = await postMultipart(filesPath(tag), jar, [
      { name: '_csrf', value: token },
      { ...file, filename: 'run.exe' },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Not uploaded: Executables');
    expect((await filesOf(alice, tag.id)).length).toBe(2);
  });

  it('refuses a plain-form upload over the plan maximum at once, storing nothing', async () => {
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Too big' });
    const jar = await signInHttp(t, alice.email);
    const token = csrfOf(await get(t, filesPath(tag), jar));
    // Only the head of the body is sent: an answer at all shows it was decided from Content-Length.
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${t.baseUrl}${filesPath(tag)}`, {
        method: 'POST',
        headers: {
          cookie: jar.header(),
          origin: t.baseUrl,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(PLAN_LIMITS.pro.maxFileBytes + 10 * MB),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.write(`--x\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n`);
      req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n');
    });
    expect(status).toBe(400);
    expect(body).toContain("Not uploaded: The file exceeds your plan's maximum of 100 MB per file.");
    expect(await filesOf(alice, tag.id)).toEqual([]);
  });

  it('answers 404 for another user’s tag and files, whatever the action', async () => {
    const jar = await signInHttp(t, bob.email);
    const bobToken = csrfOf(await get(t, filesPath(bobTag), jar));
    const aliceFile = await (async () => {
      const own = await signInHttp(t, alice.email);
      const token = csrfOf(await get(t, filesPath(aliceTag), own));
      const response = await postMultipart(
        filesPath(aliceTag),
        own,
        [{ name: 'file', filename: 'private.txt', content: Buffer.from('secret\n') }],
        {
          origin: t.baseUrl,
          'x-csrf-token': token,
          accept: 'application/json',
        },
      );
      expect(response.status).toBe(201);
      return response.body.file as { id: string };
    })();
    const filePath = `${filesPath(aliceTag)}/${aliceFile.id}`;
    for (const path of [filesPath(aliceTag), `${filePath}/download`, `${filePath}/thumbnail`, `${filePath}/edit`]) {
      const response = await get(t, path, jar);
      expect(response.status, path).toBe(404);
      expect(response.text).not.toContain('secret');
    }
    // Bob's own tag with Alice's file in its address is no way in either.
    expect((await get(t, `${filesPath(bobTag)}/${aliceFile.id}/download`, jar)).status).toBe(404);
    for (const path of [`${filePath}/delete`, `${filePath}/edit`]) {
      expect((await post(t, path, jar, { _csrf: bobToken, confirmed: 'yes', name: 'stolen.txt' })).status, path).toBe(404);
    }
    const upload = await postMultipart(filesPath(aliceTag), jar, [{ name: 'file', filename: 'x.txt', content: Buffer.from('x') }], {
      origin: t.baseUrl,
      'x-csrf-token': bobToken,
      accept: 'application/json',
    });
    expect(upload.status).toBe(404);
    expect((await filesOf(alice, aliceTag.id)).map((file) => file.name)).toEqual(['private.txt']);
  });

  it('shows a bad name on the edit form and changes nothing; asks before deleting without scripts', async () => {
    const jar = await signInHttp(t, alice.email);
    const [file] = await filesOf(alice, aliceTag.id);
    const editPath = `${filesPath(aliceTag)}/${file!.id}/edit`;
    const form = await get(t, editPath, jar);
    expect(form.status).toBe(200);
    const token = csrfOf(form);
    const bad = await post(t, editPath, jar, { _csrf: token, name: 'a/b.txt', description: 'kept?' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Name must not contain / or \\.');
    expect(bad.text).toContain('kept?');
    expect((await filesOf(alice, aliceTag.id))[0]).toMatchObject({ name: file!.name, description: null });

    const ask = await post(t, `${filesPath(aliceTag)}/${file!.id}/delete`, jar, { _csrf: token });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain(`Delete “${file!.name}”?`);
    expect(await filesOf(alice, aliceTag.id)).toHaveLength(1);
    const done = await post(t, `${filesPath(aliceTag)}/${file!.id}/delete`, jar, { _csrf: token, confirmed: 'yes' });
    expect(done.status).toBe(303);
    expect(await filesOf(alice, aliceTag.id)).toEqual([]);
  });
});
