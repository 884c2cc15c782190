import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { PERMISSIONS, type Actor } from '../../src/features/accounts/index.js';
import { createAccount, expectError, request, type Account } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';

/** Account administration as a signed-in user does it (the dashboard's front door), and its isolation. */
describe('organizations and keys administered by users', () => {
  const t = useApp();
  let alice: Account;
  let bob: Account;
  let carol: Account;
  const actor = (account: Account, plan: 'pro' | 'free' = 'pro'): Actor => ({
    userId: account.userId,
    email: account.email,
    organizationId: null,
    organizationName: null,
    environment: 'live',
    permissions: PERMISSIONS,
    plan,
  });

  beforeAll(async () => {
    [alice, bob, carol] = [await createAccount(t), await createAccount(t), await createAccount(t)];
  });

  it('lets a user found an organization and run its membership; outsiders see nothing', async () => {
    const org = await accounts.createOrganization(t.services, actor(alice), { name: 'Acme' });
    expect(org.plan).toBe('pro');
    await accounts.addMember(t.services, actor(alice), { organizationId: org.id, email: bob.email, role: 'editor' });
    const read = await accounts.getOrganization(t.services, actor(bob), { organizationId: org.id });
    expect(read.role).toBe('editor');
    expect(read.members.map((m) => [m.email, m.role])).toEqual([
      [alice.email, 'owner'],
      [bob.email, 'editor'],
    ]);
    await expect(
      accounts.addMember(t.services, actor(bob), { organizationId: org.id, email: carol.email, role: 'admin' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(accounts.getOrganization(t.services, actor(carol), { organizationId: org.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      accounts.changeMemberRole(t.services, actor(carol), { organizationId: org.id, userId: bob.userId, role: 'admin' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      accounts.changeMemberRole(t.services, actor(alice), { organizationId: org.id, userId: alice.userId, role: 'viewer' }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    for (const role of ['owner', 'member', 'Editor']) {
      await expect(
        accounts.changeMemberRole(t.services, actor(alice), { organizationId: org.id, userId: bob.userId, role }),
      ).rejects.toMatchObject({ code: 'validation_error', details: { field: 'role' } });
    }
    expect((await accounts.listOrganizations(t.services, actor(carol))).map((o) => o.id)).not.toContain(org.id);
  });

  it('shows an admin the organization keys, and no one another user’s keys', async () => {
    const org = await accounts.createOrganization(t.services, actor(alice), { name: 'Keys Inc' });
    await accounts.addMember(t.services, actor(alice), { organizationId: org.id, email: bob.email, role: 'admin' });
    const bobs = await accounts.createKey(t.services, actor(bob), { name: 'bob for org', organizationId: org.id });
    const personal = await accounts.createKey(t.services, actor(bob), { name: 'bob personal' });
    const aliceSees = (await accounts.listAdministeredKeys(t.services, actor(alice), { limit: 1000, offset: 0 })).keys.map((k) => k.id);
    expect(aliceSees).toContain(bobs.id);
    expect(aliceSees).not.toContain(personal.id);
    await expect(accounts.deleteKey(t.services, actor(alice), { id: personal.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(accounts.setKeyEnabled(t.services, actor(carol), { id: bobs.id, enabled: false })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await accounts.listAdministeredKeys(t.services, actor(carol), { limit: 1000, offset: 0 })).keys.map((k) => k.id)).not.toContain(
      bobs.id,
    );
  });

  it('disables a removed member’s organization keys at once', async () => {
    const org = await accounts.createOrganization(t.services, actor(alice), { name: 'Leavers' });
    await accounts.addMember(t.services, actor(alice), { organizationId: org.id, email: bob.email, role: 'admin' });
    const key = await accounts.createKey(t.services, actor(bob), { name: 'leaving', organizationId: org.id });
    expect((await request(t, 'GET', '/v1/me', { key: key.key })).status).toBe(200);
    await accounts.removeMember(t.services, actor(alice), { organizationId: org.id, userId: bob.userId });
    expectError(await request(t, 'GET', '/v1/me', { key: key.key }), 401, 'unauthorized');
    await expect(accounts.removeMember(t.services, actor(alice), { organizationId: org.id, userId: alice.userId })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });

  it('refuses organizations to users on the free plan', async () => {
    const free = await createAccount(t, 'free');
    await expect(accounts.createOrganization(t.services, actor(free, 'free'), { name: 'Nope' })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });
});
