import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import * as accounts from '../../src/features/accounts/index.js';
import { createAccount, request, type Account, actorOf } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { csrfOf, get, meStatus, post, screenshots, signInBrowser, signInHttp, watchConsole } from './support.js';

/** The Organizations pages, organization keys on the API Keys page, and who may see or do what. */
describe('dashboard organizations', () => {
  const holder = useBrowser();
  const t = useApp();
  let alice: Account;
  let bob: Account;
  let carol: Account;

  beforeAll(async () => {
    [alice, bob, carol] = [await createAccount(t), await createAccount(t), await createAccount(t)];
  });

  const memberRow = (page: Page, email: string) =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: email, exact: true }) });

  it('creates an organization, invites, changes a member’s role and removes them', async () => {
    const { context, page } = await newPage(holder.browser);
    const problems = watchConsole(page);
    await signInBrowser(page, t.baseUrl, alice.email);
    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard/organizations`);
    await expectAccessible(page);

    // By keyboard: the field, then Enter submits its form.
    await page.getByLabel('Name').focus();
    await page.keyboard.type('Acme <Labs>');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/organizations\/org_/);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Acme <Labs>');
    const orgUrl = page.url();

    await page.getByLabel('Email').fill(alice.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await expect(page.getByLabel('Email').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('.field-error', { hasText: 'is already a member of Acme <Labs>.' }).isVisible()).resolves.toBe(true);

    // Bob joins as a viewer (invitations are test/dashboard/invites.test.ts's); the page shows him.
    const orgId = new URL(orgUrl).pathname.split('/').pop()!;
    await accounts.addMember(t.services, actorOf(alice), { organizationId: orgId, email: bob.email, role: 'viewer' });
    await page.reload();
    await expect(memberRow(page, bob.email).getByText('Viewer', { exact: true }).first().isVisible()).resolves.toBe(true);
    await expect(memberRow(page, alice.email).getByText('Owner').first().isVisible()).resolves.toBe(true);

    await memberRow(page, bob.email).getByLabel(`Change ${bob.email} to`).selectOption('admin');
    await memberRow(page, bob.email).getByRole('button', { name: 'Change role' }).click();
    await page.waitForURL(`${orgUrl}?done=changed`);
    const org = (await accounts.listOrganizations(t.services, actorOf(alice))).find((o) => o.name === 'Acme <Labs>')!;
    const read = await accounts.getOrganization(t.services, actorOf(alice), { organizationId: org.id });
    expect(read.members.find((m) => m.email === bob.email)?.role).toBe('admin');
    await expectAccessible(page);
    await screenshots(page, 'organization');

    page.on('dialog', (dialog) => void dialog.accept());
    await memberRow(page, bob.email).getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL(`${orgUrl}?done=removed`);
    await expect(memberRow(page, bob.email).count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Organizations' }).first().click();
    await expect(page.getByRole('link', { name: 'Acme <Labs>' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'organizations');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an admin creates an organization key on the API Keys page; a member is not offered it and a forged POST is refused', async () => {
    const org = await accounts.createOrganization(t.services, actorOf(alice), { name: 'Keys Inc' });
    await accounts.addMember(t.services, actorOf(alice), { organizationId: org.id, email: bob.email, role: 'admin' });
    await accounts.addMember(t.services, actorOf(alice), { organizationId: org.id, email: carol.email, role: 'viewer' });

    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, bob.email);
    await page.goto(`${t.baseUrl}/dashboard/keys`);
    await page.getByLabel('Name').fill('org deploy');
    await page.getByLabel('Scope').selectOption({ label: 'Keys Inc' });
    await page.getByRole('button', { name: 'Create Key' }).click();
    const value = (await page.locator('#shown-key').textContent())!.trim();
    const me = await request(t, 'GET', '/v1/me', { key: value });
    expect(me.body.data.organization).toEqual({ id: org.id, name: 'Keys Inc' });
    expect(me.body.data.key.scope).toBe('organization');
    await context.close();

    // The owner sees the admin's organization key; the member is not offered the organization.
    expect((await accounts.listAdministeredKeys(t.services, actorOf(alice), { limit: 1000, offset: 0 })).keys.map((k) => k.name)).toContain(
      'org deploy',
    );
    const jar = await signInHttp(t, carol.email);
    const form = await get(t, '/dashboard/keys', jar);
    expect(form.text).not.toContain(`value="${org.id}"`);
    const before = (await accounts.listAdministeredKeys(t.services, actorOf(carol), { limit: 1000, offset: 0 })).keys.length;
    const forged = await post(t, '/dashboard/keys', jar, {
      _csrf: csrfOf(form),
      name: 'sneaky',
      permissions: 'tags:read',
      organization: org.id,
    });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('Choose Personal or an organization you own or administer.');
    expect(forged.text).not.toMatch(/svc_live_[0-9A-Za-z]{38}/);
    expect((await accounts.listAdministeredKeys(t.services, actorOf(carol), { limit: 1000, offset: 0 })).keys.length).toBe(before);
    expect(
      (await accounts.listAdministeredKeys(t.services, actorOf(alice), { limit: 1000, offset: 0 })).keys.map((k) => k.name),
    ).not.toContain('sneaky');

    // A member reads the organization page but cannot manage members.
    const memberView = await get(t, `/dashboard/organizations/${org.id}`, jar);
    expect(memberView.status).toBe(200);
    expect(memberView.text).not.toContain('Invite someone');
    const refused = await post(t, `/dashboard/organizations/${org.id}/invites`, jar, {
      _csrf: csrfOf(form),
      email: bob.email,
      role: 'viewer',
    });
    expect(refused.status).toBe(403);
  });

  it('an admin renames the organization; the owner hands it over and stays as an admin', async () => {
    const org = await accounts.createOrganization(t.services, actorOf(alice), { name: 'Old Name' });
    await accounts.addMember(t.services, actorOf(alice), { organizationId: org.id, email: bob.email, role: 'admin' });
    await accounts.addMember(t.services, actorOf(alice), { organizationId: org.id, email: carol.email, role: 'viewer' });
    const orgUrl = `${t.baseUrl}/dashboard/organizations/${org.id}`;

    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, bob.email);
    await page.goto(orgUrl);
    await expect(page.getByLabel('Transfer ownership to').count()).resolves.toBe(0);
    await page.getByLabel('Organization name').fill('   ');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect(page.getByLabel('Organization name').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByLabel('Organization name').fill('New Name');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(`${orgUrl}?done=renamed`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('New Name');
    await context.close();

    const owner = await newPage(holder.browser);
    await signInBrowser(owner.page, t.baseUrl, alice.email);
    await owner.page.goto(orgUrl);
    await owner.page.getByLabel('Transfer ownership to').selectOption({ label: carol.email });
    const questions: string[] = [];
    owner.page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await owner.page.getByRole('button', { name: 'Hand over' }).click();
    await owner.page.waitForURL(`${orgUrl}?done=transferred`);
    expect(questions).toHaveLength(1);
    await expect(memberRow(owner.page, carol.email).getByText('Owner').first().isVisible()).resolves.toBe(true);
    await expect(owner.page.getByLabel('Transfer ownership to').count()).resolves.toBe(0);
    const roles = Object.fromEntries(
      (await accounts.getOrganization(t.services, actorOf(alice), { organizationId: org.id })).members.map((m) => [m.email, m.role]),
    );
    expect(roles).toEqual({ [alice.email]: 'admin', [bob.email]: 'admin', [carol.email]: 'owner' });
    await owner.context.close();

    // An admin cannot hand over what they do not own.
    const jar = await signInHttp(t, bob.email);
    const form = await get(t, `/dashboard/organizations/${org.id}`, jar);
    const refused = await post(t, `/dashboard/organizations/${org.id}/owner`, jar, {
      _csrf: csrfOf(form),
      user_id: bob.userId,
      confirmed: 'yes',
    });
    expect(refused.status).toBe(403);
    expect(
      (await accounts.getOrganization(t.services, actorOf(alice), { organizationId: org.id })).members.find((m) => m.role === 'owner')
        ?.email,
    ).toBe(carol.email);
  });

  it('another user gets 404 for an organization and cannot disable its keys', async () => {
    const org = await accounts.createOrganization(t.services, actorOf(alice), { name: 'Private Co' });
    const key = await accounts.createKey(t.services, actorOf(alice), { name: 'org key', organizationId: org.id });
    const mallory = await createAccount(t, 'pro');
    const jar = await signInHttp(t, mallory.email);
    const page = await get(t, `/dashboard/organizations/${org.id}`, jar);
    expect(page.status).toBe(404);
    expect(page.text).toContain('Page not found');
    expect(page.text).not.toContain('Private Co');
    const list = await get(t, '/dashboard/organizations', jar);
    expect(list.text).not.toContain('Private Co');
    const csrf = csrfOf(list);
    for (const [path, fields] of [
      [`/dashboard/keys/${key.id}/disable`, {}],
      [`/dashboard/organizations/${org.id}/invites`, { email: mallory.email, role: 'admin' }],
      [`/dashboard/organizations/${org.id}/members/${alice.userId}/role`, { role: 'viewer' }],
      [`/dashboard/organizations/${org.id}/name`, { name: 'Taken' }],
      [`/dashboard/organizations/${org.id}/owner`, { user_id: mallory.userId, confirmed: 'yes' }],
    ] as const) {
      const answer = await post(t, path, jar, { _csrf: csrf, ...fields });
      expect(answer.status, path).toBe(404);
    }
    expect(await meStatus(t, key.key)).toBe(200);
    expect((await accounts.getOrganization(t.services, actorOf(alice), { organizationId: org.id })).members).toHaveLength(1);
  });

  it('tells a Free-plan user that organizations need Pro or Enterprise', async () => {
    const free = await createAccount(t, 'free');
    const jar = await signInHttp(t, free.email);
    const form = await get(t, '/dashboard/organizations', jar);
    const answer = await post(t, '/dashboard/organizations', jar, { _csrf: csrfOf(form), name: 'Cheap Co' });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Organizations need the Pro or Enterprise plan.');
    expect(answer.text).toContain('value="Cheap Co"');
  });
});
