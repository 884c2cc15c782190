import { expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import * as folders from '../../src/features/folders/index.js';
import * as shares from '../../src/features/shares/index.js';
import * as tags from '../../src/features/tags/index.js';
import * as webhooks from '../../src/features/webhooks/index.js';
import { actorOf, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

const t = useApp({ env: { ALLOW_PRIVATE_NETWORKS: 'true' } });
const alice = useAccount(t, 'enterprise');
const bob = useAccount(t, 'pro');

/** The actions the audit log gained while `act` ran, oldest first. */
async function actionsOf(t: TestApp, act: () => Promise<unknown>): Promise<string[]> {
  const seen = async () => t.database.db.selectFrom('audit_log').select(['id', 'action']).orderBy('id').execute();
  const before = new Set((await seen()).map((entry) => entry.id));
  await act();
  return (await seen()).filter((entry) => !before.has(entry.id)).map((entry) => entry.action);
}

it('gives each service operation that changes something exactly one entry of its action', async () => {
  const actor = { ...actorOf(alice, 'enterprise'), origin: { requestId: 'req_ops', ip: '198.51.100.23' } };
  const user = {
    sessionId: 'ses_none',
    userId: alice.userId,
    email: alice.email,
    plan: 'enterprise' as const,
    isOwner: false,
    timeZone: null,
    mustEnrol: false,
  };

  let folderId = '';
  expect(await actionsOf(t, async () => (folderId = (await folders.createFolder(t.services, actor, { name: 'A' })).id))).toEqual([
    'folder.created',
  ]);
  expect(await actionsOf(t, () => folders.updateFolder(t.services, actor, { id: folderId, name: 'B' }))).toEqual(['folder.updated']);
  expect(await actionsOf(t, () => folders.deleteFolder(t.services, actor, { id: folderId }))).toEqual(['folder.deleted']);

  let tagId = '';
  expect(await actionsOf(t, async () => (tagId = (await tags.createTag(t.services, actor, { title: 'T' })).id))).toEqual(['tag.created']);
  expect(await actionsOf(t, () => tags.createTags(t.services, actor, { tags: [{ title: 'U' }, { title: 'V' }] }))).toEqual([
    'tag.created',
    'tag.created',
  ]);
  let shareId = '';
  expect(await actionsOf(t, async () => (shareId = (await shares.createShare(t.services, actor, { id: tagId })).id))).toEqual([
    'share.created',
  ]);
  expect(await actionsOf(t, () => shares.deleteShare(t.services, actor, { id: tagId, share_id: shareId }))).toEqual(['share.deleted']);

  let webhookId = '';
  const hook = { name: 'H', url: 'http://127.0.0.1:9/hook', events: ['tag.created' as const] };
  expect(await actionsOf(t, async () => (webhookId = (await webhooks.createWebhook(t.services, actor, hook)).id))).toEqual([
    'webhook.created',
  ]);
  expect(await actionsOf(t, () => webhooks.updateWebhook(t.services, actor, { id: webhookId, name: 'H2' }))).toEqual(['webhook.updated']);
  expect(await actionsOf(t, () => webhooks.rotateWebhookSecret(t.services, actor, { id: webhookId }))).toEqual(['webhook.updated']);
  expect(await actionsOf(t, () => webhooks.sendTestEvent(t.services, actor, { webhookId, event: 'tag.created' }))).toEqual([
    'webhook.tested',
  ]);
  expect(await actionsOf(t, () => webhooks.deleteWebhook(t.services, actor, { id: webhookId }))).toEqual(['webhook.deleted']);
  expect(await actionsOf(t, () => tags.deleteTag(t.services, actor, { id: tagId }))).toEqual(['tag.deleted']);

  let keyId = '';
  expect(await actionsOf(t, async () => (keyId = (await accounts.createKey(t.services, actor, { name: 'k' })).id))).toEqual([
    'key.created',
  ]);
  expect(await actionsOf(t, () => accounts.editKey(t.services, actor, { id: keyId, name: 'k2', permissions: 'all', ip: '' }))).toEqual([
    'key.updated',
  ]);
  expect(await actionsOf(t, () => accounts.setKeyEnabled(t.services, actor, { id: keyId, enabled: false }))).toEqual(['key.disabled']);
  expect(await actionsOf(t, () => accounts.setKeyEnabled(t.services, actor, { id: keyId, enabled: true }))).toEqual(['key.enabled']);
  expect(await actionsOf(t, () => accounts.regenerateKey(t.services, actor, { id: keyId }))).toEqual(['key.regenerated']);
  expect(await actionsOf(t, () => accounts.deleteKey(t.services, actor, { id: keyId }))).toEqual(['key.deleted']);

  let orgId = '';
  expect(await actionsOf(t, async () => (orgId = (await accounts.createOrganization(t.services, actor, { name: 'O' })).id))).toEqual([
    'organization.created',
  ]);
  expect(await actionsOf(t, () => accounts.renameOrganization(t.services, actor, { organizationId: orgId, name: 'O2' }))).toEqual([
    'organization.renamed',
  ]);
  const member = { organizationId: orgId, email: bob.email, role: 'editor' };
  expect(await actionsOf(t, () => accounts.addMember(t.services, actor, member))).toEqual(['member.added']);
  const role = { organizationId: orgId, userId: bob.userId, role: 'admin' };
  expect(await actionsOf(t, () => accounts.changeMemberRole(t.services, actor, role))).toEqual(['member.role_changed']);
  const transfer = { organizationId: orgId, userId: bob.userId };
  expect(await actionsOf(t, () => accounts.transferOrganization(t.services, actor, transfer))).toEqual(['organization.transferred']);
  const removal = { organizationId: orgId, userId: alice.userId };
  expect(await actionsOf(t, () => accounts.removeMember(t.services, OPERATOR, removal))).toEqual(['member.removed']);

  expect(await actionsOf(t, () => accounts.setTimeZone(t.services, user, { time_zone: 'Europe/Berlin' }))).toEqual([
    'user.time_zone_changed',
  ]);
  const password = { current: 'correct horse battery', next: 'a new horse battery' };
  expect(await actionsOf(t, () => accounts.changePassword(t.services, user, password))).toEqual(['user.password_changed']);
  const reset = { email: alice.email, password: 'correct horse battery' };
  expect(await actionsOf(t, () => accounts.setPassword(t.services, OPERATOR, reset))).toEqual(['user.password_set']);
  expect(await actionsOf(t, () => accounts.setUserPlan(t.services, OPERATOR, { email: bob.email, plan: 'enterprise' }))).toEqual([
    'user.plan_changed',
  ]);
  expect(await actionsOf(t, () => accounts.setUserDisabled(t.services, OPERATOR, { email: bob.email, disabled: true }))).toEqual([
    'user.disabled',
  ]);
  expect(await actionsOf(t, () => accounts.setUserDisabled(t.services, OPERATOR, { email: bob.email, disabled: false }))).toEqual([
    'user.enabled',
  ]);
  expect(await actionsOf(t, () => accounts.setSignupOpen(t.services, OPERATOR, { open: true }))).toEqual(['instance.signup_changed']);

  // Reads write nothing.
  expect(
    await actionsOf(t, async () => {
      await tags.listTags(t.services, actor, { limit: 10, offset: 0, sort: 'created', order: 'desc' });
      await accounts.listOrganizations(t.services, actor);
      await webhooks.listWebhooks(t.services, actor, { limit: 10, offset: 0 });
    }),
  ).toEqual([]);
});

it('records key.disabled for each working key an admin loses with a demotion or a removal, in the same transaction', async () => {
  const owner = { ...actorOf(alice, 'enterprise'), origin: { requestId: 'req_demote', ip: '198.51.100.23' } };
  const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Keys', ownerEmail: alice.email, plan: 'enterprise' });
  await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: bob.email, role: 'admin' });
  const keyOf = (name: string, test = false) =>
    accounts.createKey(t.services, OPERATOR, { email: bob.email, organizationId: org.id, name, test });
  const [live, sandbox, off] = [await keyOf('live'), await keyOf('sandbox', true), await keyOf('off')];
  await accounts.setKeyEnabled(t.services, OPERATOR, { id: off.id, enabled: false });
  const personal = await accounts.createKey(t.services, OPERATOR, { email: bob.email, name: 'personal' });

  const demotion = { organizationId: org.id, userId: bob.userId, role: 'editor' };
  const actions = await actionsOf(t, () => accounts.changeMemberRole(t.services, owner, demotion));
  expect(actions.sort()).toEqual(['key.disabled', 'key.disabled', 'member.role_changed']);
  const entries = await t.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', 'key.disabled')
    .where('organization_id', '=', org.id)
    .where('request_id', '=', 'req_demote')
    .orderBy('target_id')
    .execute();
  expect(entries.map((entry) => [entry.target_id, entry.environment, entry.request_id, entry.actor_id, entry.details])).toEqual(
    [
      [live.id, 'live', 'req_demote', alice.userId, '{"reason":"role_changed"}'],
      [sandbox.id, 'test', 'req_demote', alice.userId, '{"reason":"role_changed"}'],
    ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
  );
  // The already disabled key and the personal key are not the organization's change.
  expect(entries.map((entry) => entry.target_id)).not.toContain(off.id);
  const { enabled } = await t.database.db.selectFrom('api_keys').select('enabled').where('id', '=', personal.id).executeTakeFirstOrThrow();
  expect(enabled).toBe(1);

  await accounts.changeMemberRole(t.services, OPERATOR, { ...demotion, role: 'admin' });
  const again = await keyOf('again');
  const removal = { organizationId: org.id, userId: bob.userId };
  expect((await actionsOf(t, () => accounts.removeMember(t.services, owner, removal))).sort()).toEqual(['key.disabled', 'member.removed']);
  const removed = await t.database.db
    .selectFrom('audit_log')
    .select(['details'])
    .where('action', '=', 'key.disabled')
    .where('target_id', '=', again.id)
    .executeTakeFirstOrThrow();
  expect(removed.details).toBe('{"reason":"member_removed"}');
});
