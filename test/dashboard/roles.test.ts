import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import type { OrgRole } from '../../src/db/schema.js';
import { tagReport } from '../../src/features/analytics/index.js';
import { createFolder } from '../../src/features/folders/index.js';
import { listFiles, prepareUpload } from '../../src/features/files/index.js';
import { createShare } from '../../src/features/shares/index.js';
import { createTag, deleteTag, getTag, listTags, updateTag } from '../../src/features/tags/index.js';
import { createWebhook, getWebhook, listWebhooks } from '../../src/features/webhooks/index.js';
import { createAccount, createKey, request, type Account } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp } from './support.js';

/**
 * Organization roles: an editor changes tags, folders and files but reaches no webhooks, keys or
 * members; a viewer reads and changes nothing. The services refuse (403) whoever calls them; the
 * dashboard leaves out, and answers 404 for, the pages a role may not reach.
 */
describe('organization roles', () => {
  const holder = useBrowser();
  const t = useApp({ env: { ALLOW_PRIVATE_NETWORKS: 'true' } });
  let owner: Account;
  let editor: Account;
  let viewer: Account;
  let org: { id: string; name: string };

  /** A member acting in the organization's live workspace, as the dashboard builds them. */
  const inOrg = (account: Account, role: OrgRole) =>
    accounts.actorOfUser({
      ...account,
      plan: 'pro',
      workspace: { environment: 'live', organization: { id: org.id, name: org.name, plan: 'enterprise', role } },
    });

  beforeAll(async () => {
    [owner, editor, viewer] = [await createAccount(t, 'pro'), await createAccount(t, 'pro'), await createAccount(t, 'pro')];
    org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme', ownerEmail: owner.email, plan: 'enterprise' });
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: editor.email, role: 'editor' });
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: viewer.email, role: 'viewer' });
  });

  const forbidden = { code: 'forbidden' };

  it('services: an editor changes tags, folders and files, and is refused webhooks, keys and members', async () => {
    const as = inOrg(editor, 'editor');
    const hook = await createWebhook(t.services, inOrg(owner, 'owner'), {
      name: 'Owner hook',
      url: 'https://127.0.0.1:8443/hook',
      events: ['tag.created'],
    });

    const tag = await createTag(t.services, as, { title: 'Edited by the editor' });
    await updateTag(t.services, as, { id: tag.id, title: 'Renamed by the editor' });
    await createFolder(t.services, as, { name: 'Editor folder' });
    await expect(prepareUpload(t.services, as, { tagId: tag.id })).resolves.toMatchObject({ tag: { id: tag.id } });
    await expect(tagReport(t.services, as, { id: tag.id, granularity: 'day' })).resolves.toMatchObject({ tag_id: tag.id });

    await expect(listWebhooks(t.services, as, { limit: 10, offset: 0 })).rejects.toMatchObject(forbidden);
    await expect(getWebhook(t.services, as, { id: hook.id })).rejects.toMatchObject(forbidden);
    await expect(
      createWebhook(t.services, as, { name: 'Mine', url: 'https://127.0.0.1:8443/x', events: ['tag.created'] }),
    ).rejects.toMatchObject(forbidden);
    await expect(accounts.createKey(t.services, as, { name: 'org key', organizationId: org.id })).rejects.toMatchObject(forbidden);
    await expect(accounts.addMember(t.services, as, { organizationId: org.id, email: owner.email, role: 'viewer' })).rejects.toMatchObject(
      forbidden,
    );
    await deleteTag(t.services, as, { id: tag.id });
  });

  it('services: a viewer reads tags, files and analytics, and every change is refused', async () => {
    const as = inOrg(viewer, 'viewer');
    const tag = await createTag(t.services, inOrg(owner, 'owner'), { title: 'Read by the viewer' });

    expect((await listTags(t.services, as, { sort: 'created', order: 'desc', limit: 50, offset: 0 })).tags.map((row) => row.id)).toContain(
      tag.id,
    );
    await expect(Promise.resolve(getTag(t.services, as, { id: tag.id }))).resolves.toMatchObject({ id: tag.id });
    await expect(listFiles(t.services, as, { tagId: tag.id, limit: 10, offset: 0 })).resolves.toMatchObject({ total: 0 });
    await expect(tagReport(t.services, as, { id: tag.id, granularity: 'day' })).resolves.toMatchObject({ tag_id: tag.id });

    const refusals: Record<string, () => Promise<unknown>> = {
      createTag: () => createTag(t.services, as, { title: 'Not allowed' }),
      updateTag: () => updateTag(t.services, as, { id: tag.id, title: 'Not allowed' }),
      deleteTag: () => deleteTag(t.services, as, { id: tag.id }),
      createFolder: () => createFolder(t.services, as, { name: 'Not allowed' }),
      prepareUpload: () => prepareUpload(t.services, as, { tagId: tag.id }),
      createShare: () => createShare(t.services, as, { id: tag.id }),
      listWebhooks: () => listWebhooks(t.services, as, { limit: 10, offset: 0 }),
    };
    for (const [name, call] of Object.entries(refusals)) {
      await expect(Promise.resolve().then(call), name).rejects.toMatchObject(forbidden);
    }
    await expect(Promise.resolve(getTag(t.services, as, { id: tag.id }))).resolves.toMatchObject({ title: 'Read by the viewer' });
  });

  it('an admin made editor or viewer loses the organization keys they made, as a removed member does', async () => {
    const admin = await createAccount(t, 'pro');
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: admin.email, role: 'admin' });
    const key = (await createKey(t, admin.email, { organizationId: org.id })).key;
    expect((await request(t, 'GET', '/v1/webhooks', { key })).status).toBe(200);
    await accounts.changeMemberRole(t.services, inOrg(owner, 'owner'), { organizationId: org.id, userId: admin.userId, role: 'viewer' });
    expect((await request(t, 'GET', '/v1/webhooks', { key })).status).toBe(401);
    const entry = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'member.role_changed')
      .where('target_id', '=', admin.userId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.details!)).toEqual({ role: 'viewer', previous_role: 'admin' });
  });

  it('leaves the API’s rules as they were: an organization key acts by its own permissions', async () => {
    const full = (await createKey(t, owner.email, { organizationId: org.id })).key;
    expect((await request(t, 'POST', '/v1/tags', { key: full, body: { title: 'By key' } })).status).toBe(201);
    expect((await request(t, 'GET', '/v1/webhooks', { key: full })).status).toBe(200);
    const readOnly = (await createKey(t, owner.email, { organizationId: org.id, permissions: 'tags:read' })).key;
    expect((await request(t, 'GET', '/v1/tags', { key: readOnly })).status).toBe(200);
    expect((await request(t, 'POST', '/v1/tags', { key: readOnly, body: { title: 'No' } })).status).toBe(403);
  });

  it('dashboard: an editor’s organization workspace has no Webhooks, whose pages answer 404; tags work', async () => {
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, editor.email);
    await page.goto(`${t.baseUrl}/dashboard/tags`);
    await expect(page.getByRole('link', { name: 'Webhooks' }).count()).resolves.toBe(1);
    await Promise.all([page.waitForEvent('load'), page.getByLabel('Workspace').selectOption({ label: 'Acme' })]);
    await expect(page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).count()).resolves.toBe(0);
    await expect(page.getByText('You are an editor in Acme').isVisible()).resolves.toBe(true);

    await page.goto(`${t.baseUrl}/dashboard/tags/new`);
    await page.getByLabel('Title').fill('Editor poster');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/dashboard\/tags\/tag_.*done=created/);
    await expectAccessible(page);
    await screenshots(page, 'roles-editor');

    // The organization's keys are the owner's and admins': an editor's request for one is the 404 page.
    const orgKey = await accounts.createKey(t.services, inOrg(owner, 'owner'), { name: 'Acme deploy', organizationId: org.id });
    await page.goto(`${t.baseUrl}/dashboard/keys`);
    await expect(page.getByText('Acme deploy').count()).resolves.toBe(0);
    for (const path of ['/dashboard/webhooks', '/dashboard/webhooks/new', `/dashboard/keys/${orgKey.id}/edit`]) {
      const answer = await page.goto(`${t.baseUrl}${path}`);
      expect(answer?.status(), path).toBe(404);
      await expect(page.getByRole('heading', { name: 'Page not found' }).isVisible()).resolves.toBe(true);
    }
    await context.close();
  });

  it('dashboard: a viewer reads the organization’s tags, and every form is refused with 403', async () => {
    const tag = await createTag(t.services, inOrg(owner, 'owner'), { title: 'Viewer can read this' });
    const jar = await signInHttp(t, viewer.email);
    jar.cookies.set('tagsvc_workspace', `live:${org.id}`);
    const list = await get(t, '/dashboard/tags', jar);
    expect(list.text).toContain('Viewer can read this');
    expect(list.text).toContain('You are a viewer in Acme: Reads tags, files and analytics. Changes nothing.');
    expect((await get(t, `/dashboard/tags/${tag.id}/analytics`, jar)).status).toBe(200);
    expect((await get(t, '/dashboard/webhooks', jar)).status).toBe(404);

    const csrf = csrfOf(list);
    const created = await post(t, '/dashboard/tags/new', jar, { _csrf: csrf, title: 'Viewer tag', read: 'public', write: 'owner' });
    expect(created.status).toBe(403);
    expect(created.text).toContain('Not allowed');
    const deleted = await post(t, `/dashboard/tags/${tag.id}/delete`, jar, { _csrf: csrf, confirmed: 'yes' });
    expect(deleted.status).toBe(403);
    await expect(Promise.resolve(getTag(t.services, inOrg(owner, 'owner'), { id: tag.id }))).resolves.toMatchObject({
      title: 'Viewer can read this',
    });
  });
});
