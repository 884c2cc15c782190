import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as folders from '../../src/features/folders/index.js';
import * as tags from '../../src/features/tags/index.js';
import { actorOf, type Account } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

/** Folders: the tree, create, rename, nest, delete, and moving tags in and out, from the browser. */
describe('dashboard folders', () => {
  const holder = useBrowser();
  const t = useApp();
  const alice = useAccount(t, 'pro');
  const bob = useAccount(t, 'pro');

  const foldersOf = async (account: Account) =>
    (await folders.listFolders(t.services, actorOf(account), { limit: 100, offset: 0 })).folders;
  const tagsIn = async (account: Account, folder: string) =>
    (await tags.listTags(t.services, actorOf(account), { folder, sort: 'title', order: 'asc', limit: 100, offset: 0 })).tags.map(
      (tag) => tag.title,
    );

  async function createFolder(page: Page, name: string, inside?: string) {
    await page.goto(`${t.baseUrl}/dashboard/folders`);
    await page.getByLabel('Name').fill(name);
    if (inside) await page.getByLabel('Inside').selectOption({ label: inside });
    await page.getByRole('button', { name: 'Create Folder' }).click();
    await page.waitForURL(/\/dashboard\/folders\/fld_[^/]+\?done=created$/);
  }

  it('creates, nests, renames and deletes folders, refusing cycles and non-empty folders', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    page.on('dialog', (dialog) => void dialog.accept());
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/folders`);
    await expect(page.getByText('No folders yet.').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Tags', exact: true }).first().getAttribute('href')).resolves.toBe('/dashboard/tags');

    await createFolder(page, 'Clients');
    await createFolder(page, 'Acme', 'Clients');
    await createFolder(page, 'Archive');
    const [acme] = (await foldersOf(alice)).filter((f) => f.name === 'Acme');
    const clients = (await foldersOf(alice)).find((f) => f.name === 'Clients')!;
    expect(acme!.parent_id).toBe(clients.id);

    // The tree: Acme nested under Clients, each with its count and a link to the filtered tag list.
    await page.goto(`${t.baseUrl}/dashboard/folders`);
    const clientsItem = page.locator('.folder-tree-root > li').filter({ has: page.getByRole('link', { name: 'Clients', exact: true }) });
    await expect(clientsItem.locator('.folder-tree').getByRole('link', { name: 'Acme', exact: true }).isVisible()).resolves.toBe(true);
    await expect(clientsItem.getByText('0 tags').first().isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'View tags in Acme' }).getAttribute('href')).resolves.toBe(
      `/dashboard/tags?folder=${acme!.id}`,
    );
    await expectAccessible(page);

    // An empty name is refused on its field.
    await page.getByLabel('Name').fill('   ');
    await page.getByRole('button', { name: 'Create Folder' }).click();
    await expect(page.locator('#field-name-error').textContent()).resolves.toMatch(/name/i);

    // Clients cannot go inside its own subfolder: the service's error, on the field.
    await page.goto(`${t.baseUrl}/dashboard/folders/${clients.id}`);
    await page.getByLabel('Inside').selectOption({ label: 'Clients / Acme' });
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save Folder' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    await expect(page.locator('#field-parent_id-error').textContent()).resolves.toBe(
      'A folder cannot be placed inside itself or its subfolders.',
    );

    // Rename and move Acme under Archive.
    await page.goto(`${t.baseUrl}/dashboard/folders/${acme!.id}`);
    await page.getByLabel('Name').fill('Acme Corp');
    await page.getByLabel('Inside').selectOption({ label: 'Archive' });
    await page.getByRole('button', { name: 'Save Folder' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/folders/${acme!.id}?done=saved`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Acme Corp');
    const moved = await folders.getFolder(t.services, actorOf(alice), { id: acme!.id });
    expect(moved.name).toBe('Acme Corp');
    expect(moved.parent_id).toBe((await foldersOf(alice)).find((f) => f.name === 'Archive')!.id);

    // Archive holds a folder: deleting it is refused, clearly.
    const archive = moved.parent_id!;
    await page.goto(`${t.baseUrl}/dashboard/folders/${archive}`);
    await page.getByRole('button', { name: 'Delete Folder' }).click();
    await page.getByText('The folder still holds folders; move or delete them first.').waitFor();
    expect(await foldersOf(alice)).toHaveLength(3);

    // Clients is empty now: it goes, after the confirmation.
    await page.goto(`${t.baseUrl}/dashboard/folders/${clients.id}`);
    await page.getByRole('button', { name: 'Delete Folder' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/folders?done=deleted`);
    expect((await foldersOf(alice)).map((f) => f.name).sort()).toEqual(['Acme Corp', 'Archive']);
    await screenshots(page, 'folders');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('moves tags into a folder by title search and out again', async () => {
    const a = actorOf(alice);
    const folder = await folders.createFolder(t.services, a, { name: 'Events' });
    const other = await folders.createFolder(t.services, a, { name: 'Museum' });
    for (const title of ['Summer fair', 'Summer 50% sale', 'Winter gala']) await tags.createTag(t.services, a, { title });
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/folders/${folder.id}`);
    await expect(page.getByText('No tags in this folder yet.').isVisible()).resolves.toBe(true);

    // The search matches titles, with % taken literally.
    await page.getByLabel('Search tags by title').fill('50%');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=50%25/);
    await expect(page.locator('.candidate-list li').count()).resolves.toBe(1);
    await page.getByLabel('Search tags by title').fill('summer');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=summer/);
    await expect(page.locator('.candidate-list li').count()).resolves.toBe(2);
    await page.getByLabel('Summer fair').check();
    await page.getByLabel('Summer 50% sale').check();
    await page.getByRole('button', { name: 'Move Selected Here' }).click();
    await page.getByText('2 tags moved here.').waitFor();
    expect(await tagsIn(alice, folder.id)).toEqual(['Summer 50% sale', 'Summer fair']);
    await expect(page.getByRole('row').filter({ hasText: 'Summer fair' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'folder');

    // Moving with nothing ticked is refused on the list.
    await page.getByRole('button', { name: 'Move Selected Here' }).click();
    await page.getByText('Choose at least one tag to move here.').waitFor();

    // One tag out to another folder, one to no folder.
    const fair = page.getByRole('row').filter({ hasText: 'Summer fair' });
    await fair.getByLabel('Move “Summer fair” to').selectOption({ label: 'Museum' });
    await fair.getByRole('button', { name: 'Move' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/folders/${folder.id}?done=moved`);
    const sale = page.getByRole('row').filter({ hasText: 'Summer 50% sale' });
    await sale.getByLabel('Move “Summer 50% sale” to').selectOption({ label: 'No folder' });
    await sale.getByRole('button', { name: 'Move' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/folders/${folder.id}?done=moved`);
    expect(await tagsIn(alice, folder.id)).toEqual([]);
    expect(await tagsIn(alice, other.id)).toEqual(['Summer fair']);

    // The tree counts them.
    await page.goto(`${t.baseUrl}/dashboard/folders`);
    const museum = page.locator('.folder-row').filter({ has: page.getByRole('link', { name: 'Museum', exact: true }) });
    await expect(museum.getByText('1 tag', { exact: true }).isVisible()).resolves.toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("answers 404 for another user's folder and refuses moving another user's tag", async () => {
    const folder = await folders.createFolder(t.services, actorOf(alice), { name: 'Private' });
    const tag = await tags.createTag(t.services, actorOf(alice), { title: 'Alice only' });
    const jar = await signInHttp(t, bob.email);
    expect((await get(t, `/dashboard/folders/${folder.id}`, jar)).status).toBe(404);
    expect((await get(t, '/dashboard/folders/fld_missing', jar)).status).toBe(404);
    const list = await get(t, '/dashboard/folders', jar);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('Private');
    const csrf = csrfOf(list);
    expect((await post(t, `/dashboard/folders/${folder.id}`, jar, { _csrf: csrf, name: 'Stolen' })).status).toBe(404);
    expect((await post(t, `/dashboard/folders/${folder.id}/delete`, jar, { _csrf: csrf, confirmed: 'yes' })).status).toBe(404);

    // Bob's own folder, Alice's tag: refused, and the tag stays where it was.
    const bobs = await folders.createFolder(t.services, actorOf(bob), { name: 'Bob’s' });
    const answer = await post(t, `/dashboard/folders/${bobs.id}/tags`, jar, { _csrf: csrf, tag: tag.id });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('This tag does not exist.');
    expect((await tags.getTag(t.services, actorOf(alice), { id: tag.id })).folder_id).toBeNull();
    expect((await folders.getFolder(t.services, actorOf(alice), { id: folder.id })).name).toBe('Private');

    // Without scripts, Delete asks on a page of its own; a folder holding a tag is refused, saying so.
    await tags.createTag(t.services, actorOf(bob), { title: 'Bob’s tag', folder_id: bobs.id });
    const ask = await post(t, `/dashboard/folders/${bobs.id}/delete`, jar, { _csrf: csrf });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Delete “Bob’s”?');
    expect(ask.text).toContain('name="confirmed" value="yes"');
    const kept = await post(t, `/dashboard/folders/${bobs.id}/delete`, jar, { _csrf: csrf, confirmed: 'yes' });
    expect(kept.status).toBe(400);
    expect(kept.text).toContain('The folder still holds tags; move or delete them first.');
    expect((await folders.getFolder(t.services, actorOf(bob), { id: bobs.id })).name).toBe('Bob’s');
  });
});
