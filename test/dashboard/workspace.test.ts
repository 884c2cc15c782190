import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createAccount, createKey, request, type Account } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { csrfOf, get, post, screenshots, signInBrowser, signInHttp } from './support.js';

/** The workspace switcher: acting for an organization one owns or administers, and on test data. */
describe('dashboard workspaces', () => {
  const holder = useBrowser();
  const t = useApp();
  let alice: Account;
  let bob: Account;
  let org: { id: string; name: string };

  beforeAll(async () => {
    [alice, bob] = [await createAccount(t, 'pro'), await createAccount(t, 'pro')];
    // The operator puts the organization on Enterprise: its plan, not Alice's, governs in it.
    org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme', ownerEmail: alice.email, plan: 'enterprise' });
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: bob.email, role: 'viewer' });
  });

  const titlesFor = async (key: string) =>
    ((await request(t, 'GET', '/v1/tags', { key })).body.data as Array<{ title: string }>).map((tag) => tag.title);

  /** Chooses a workspace in the header; the page reloads the section's list. */
  async function choose(page: Page, label: string) {
    // The select keeps the choice before the new page arrives: wait for that page's load.
    await Promise.all([page.waitForEvent('load'), page.getByLabel('Workspace').selectOption({ label })]);
  }

  async function newTag(page: Page, title: string) {
    await page.goto(`${t.baseUrl}/dashboard/tags/new`);
    await page.getByLabel('Title').fill(title);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/dashboard\/tags\/tag_/);
    return new URL(page.url()).pathname.split('/').pop()!;
  }

  it('an owner switches to the organization: tags made there are the organization’s, under its plan', async () => {
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags`);
    const choices = await page.getByLabel('Workspace').locator('option').allTextContents();
    expect(choices).toEqual(['Personal', 'Acme', 'Personal (test data)', 'Acme (test data)']);
    await expect(page.getByRole('button', { name: 'Switch' }).isHidden()).resolves.toBe(true);

    await choose(page, 'Acme');
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/tags`);
    await expect(page.getByLabel('Workspace').inputValue()).resolves.toBe(`live:${org.id}`);
    const tagId = await newTag(page, 'Org poster');

    const orgKey = (await createKey(t, alice.email, { organizationId: org.id })).key;
    expect(await titlesFor(orgKey)).toContain('Org poster');
    expect(await titlesFor(alice.key)).not.toContain('Org poster');

    // Acme is on Enterprise: its tags' analytics show live viewers, though Alice is on Pro.
    await page.goto(`${t.baseUrl}/dashboard/tags/${tagId}/analytics`);
    await expect(page.getByText('is an Enterprise feature').count()).resolves.toBe(0);
    await expect(page.getByText('Viewing now').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'workspace-organization');

    await page.goto(`${t.baseUrl}/dashboard/analytics`);
    await expect(page.locator('.lead').first().textContent()).resolves.toMatch(/^All of Acme’s tags, /);
    await choose(page, 'Personal');
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/analytics`);
    await page.goto(`${t.baseUrl}/dashboard/tags`);
    await expect(page.getByRole('heading', { level: 1, name: 'Tags' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Org poster' }).count()).resolves.toBe(0);
    expect((await get(t, `/dashboard/tags/${tagId}`, await signInHttp(t, alice.email))).status).toBe(404);
    await context.close();
  });

  it('test data: tags made there reach test keys only, and the page says so', async () => {
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.goto(`${t.baseUrl}/dashboard/tags`);
    await choose(page, 'Personal (test data)');
    await expect(page.getByText('Test data: what you do here reaches only test keys’ data').isVisible()).resolves.toBe(true);
    // Test data is not live: the pages say where it is and how long it stays (the sandbox purge).
    const days = t.config.sandboxRetentionDays;
    await expect(page.locator('.workspace-note').textContent()).resolves.toContain(
      `Test tags are deleted ${days} days after they are made.`,
    );
    const lead = await page.locator('.lead').first().textContent();
    expect(lead).toContain(`is deleted ${days} days after it is made`);
    expect(lead).not.toContain('live');
    const tagId = await newTag(page, 'Sandbox tag');
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      `Test tag created: add its content on the Edit tab. Like all test data, it is deleted ${days} days after it was made.`,
    );
    await expect(page.getByRole('heading', { name: 'Test page' }).isVisible()).resolves.toBe(true);
    await screenshots(page, 'workspace-test');
    await page.goto(`${t.baseUrl}/dashboard/tags/${tagId}/edit`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/done=saved/);
    await expect(page.getByRole('status').filter({ hasText: 'Saved.' }).textContent()).resolves.toBe(
      'Saved. Its test page shows the change now.',
    );
    expect(await page.content()).not.toMatch(/live at once|public page shows/i);

    const testKey = (await createKey(t, alice.email, { test: true })).key;
    expect(await titlesFor(testKey)).toContain('Sandbox tag');
    expect(await titlesFor(alice.key)).not.toContain('Sandbox tag');
    await context.close();
  });

  it('someone outside the organization is not offered it, and cannot choose it by a forged form or cookie', async () => {
    const ownerKey = (await createKey(t, alice.email, { organizationId: org.id })).key;
    await request(t, 'POST', '/v1/tags', { key: ownerKey, body: { title: 'Acme internal' } });
    // A viewer is offered it and reads its tags; an outsider is not.
    const bobs = await signInHttp(t, bob.email);
    bobs.cookies.set('tagsvc_workspace', `live:${org.id}`);
    expect((await get(t, '/dashboard/tags', bobs)).text).toContain('Acme internal');

    const outsider = await createAccount(t, 'pro');
    const jar = await signInHttp(t, outsider.email);
    const page = await get(t, '/dashboard/tags', jar);
    expect(page.text).not.toContain(org.id);
    const forged = await post(t, '/dashboard/workspace', jar, {
      _csrf: csrfOf(page),
      workspace: `live:${org.id}`,
      return: '/dashboard/tags',
    });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('set-cookie') ?? '').not.toContain('tagsvc_workspace');

    jar.cookies.set('tagsvc_workspace', `live:${org.id}`);
    const list = await get(t, '/dashboard/tags', jar);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('Acme internal');
    expect(list.text).toContain('<option value="live:personal" selected>');

    const ok = await post(t, '/dashboard/workspace', jar, { _csrf: csrfOf(page), workspace: 'test:personal', return: '/dashboard/tags/x' });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/dashboard/tags');
  });
});
