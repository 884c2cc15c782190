import { describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createKey, request, type TestApp } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';

const t = useApp();
const owner = useAccount(t, 'enterprise');
const outsider = useAccount(t, 'enterprise');
const proUser = useAccount(t, 'pro');

const auditLog = (key: string, query = '') => request(t, 'GET', `/v1/audit-log${query}`, { key });

async function organizationWithKey(t: TestApp, email: string, name: string) {
  const org = await accounts.createOrganization(t.services, OPERATOR, { name, ownerEmail: email, plan: 'enterprise' });
  const key = await createKey(t, email, { organizationId: org.id, name: `${name} key` });
  return { org, key: key.key };
}

describe('GET /v1/audit-log', () => {
  it('needs audit:read, which analytics:read does not give, and the Enterprise plan', async () => {
    const analyticsOnly = await createKey(t, owner.email, { permissions: 'analytics:read,tags:read' });
    const refused = await auditLog(analyticsOnly.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('audit:read');

    const onPro = await auditLog(proUser.key);
    expect(onPro.status).toBe(403);
    expect(onPro.body.error.message).toContain('Enterprise');

    const auditOnly = await createKey(t, owner.email, { permissions: 'audit:read' });
    expect((await auditLog(auditOnly.key)).status).toBe(200);
  });

  it('keeps environments apart: a sandbox key reads the sandbox’s entries only, a live key never the sandbox’s', async () => {
    const account = await accounts.createUser(t.services, OPERATOR, {
      email: 'envs@example.com',
      password: 'correct horse battery',
      plan: 'enterprise',
    });
    const live = await createKey(t, account.email, { name: 'live reader' });
    const sandbox = await createKey(t, account.email, { name: 'sandbox reader', test: true });
    const liveTag = await request(t, 'POST', '/v1/tags', { key: live.key, body: { title: 'Live' } });
    const testTag = await request(t, 'POST', '/v1/tags', { key: sandbox.key, body: { title: 'Sandbox' } });
    type Entry = { environment: string | null; target_id: string; action: string };
    const fromSandbox = (await auditLog(sandbox.key)).body.data as Entry[];
    expect(fromSandbox.map((e) => e.target_id)).toContain(testTag.body.data.id);
    expect(fromSandbox.every((e) => e.environment === 'test')).toBe(true);
    const fromLive = (await auditLog(live.key)).body.data as Entry[];
    expect(fromLive.map((e) => e.target_id)).toContain(liveTag.body.data.id);
    expect(fromLive.every((e) => e.environment !== 'test')).toBe(true);
    // The account's own entries (its creation) carry no environment: live data's side.
    expect(fromLive.some((e) => e.action === 'user.created' && e.environment === null)).toBe(true);
  });

  it('lists the workspace’s entries newest first in the list envelope, paginated', async () => {
    for (const title of ['One', 'Two', 'Three']) {
      expect((await request(t, 'POST', '/v1/tags', { key: owner.key, body: { title } })).status).toBe(201);
    }
    const first = await auditLog(owner.key, '?action=tag.created&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, has_more: true });
    expect(first.body.data).toHaveLength(2);
    const [newest, older] = first.body.data;
    expect(newest.created_at >= older.created_at).toBe(true);
    expect(newest).toMatchObject({
      action: 'tag.created',
      actor: { type: 'key', name: 'default' },
      ip: '127.0.0.0',
      environment: 'live',
      organization_id: null,
      user_id: owner.userId,
      details: null,
    });
    expect(newest.id).toMatch(/^aud_/);
    expect(newest.request_id).toMatch(/^req_/);
    const rest = await auditLog(owner.key, '?action=tag.created&limit=2&offset=2');
    expect(rest.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, has_more: false });
    expect(rest.body.data).toHaveLength(1);
    // Reading the log is a read: it writes nothing.
    expect((await auditLog(owner.key, '?action=tag.created')).body.pagination.total).toBe(3);
  });

  it('filters by action, actor and dates, and refuses what is not one', async () => {
    const named = await createKey(t, owner.email, { name: 'deployer' });
    expect((await request(t, 'POST', '/v1/tags', { key: named.key, body: { title: 'By the deployer' } })).status).toBe(201);
    const byName = await auditLog(owner.key, '?actor=deployer');
    expect(byName.body.data.map((entry: { action: string }) => entry.action)).toEqual(['tag.created']);
    const byId = await auditLog(owner.key, `?actor=${named.id}`);
    expect(byId.body.pagination.total).toBe(1);
    const byOperator = await auditLog(owner.key, '?action=key.created&actor=operator');
    expect(byOperator.body.pagination.total).toBeGreaterThanOrEqual(1);

    const today = t.clock.now().toISOString().slice(0, 10);
    const tomorrow = new Date(t.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    expect((await auditLog(owner.key, `?actor=deployer&from=${today}&to=${today}`)).body.pagination.total).toBe(1);
    expect((await auditLog(owner.key, `?actor=deployer&from=${tomorrow}`)).body.pagination.total).toBe(0);

    const badDate = await auditLog(owner.key, '?from=yesterday');
    expect(badDate.status).toBe(400);
    expect(badDate.body.error).toMatchObject({ code: 'validation_error', field: 'from' });
    // A day that does not exist, and a time without its offset (whose zone would be the server's).
    for (const query of ['?from=2026-02-31', '?to=2026-11-28T10:00:00', '?from=2026-11-28%20junk']) {
      const refused = await auditLog(owner.key, query);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('validation_error');
    }
    const reversed = await auditLog(owner.key, `?from=${tomorrow}&to=${today}`);
    expect(reversed.status).toBe(400);
    expect(reversed.body.error).toMatchObject({ code: 'invalid_date_range', field: 'to' });
    expect((await auditLog(owner.key, `?actor=deployer&from=${today}&to=9999-12-31`)).body.pagination.total).toBe(1);
    expect((await auditLog(owner.key, `?actor=deployer&from=${today}T00:00:00%2B02:00`)).body.pagination.total).toBe(1);
    const badAction = await auditLog(owner.key, '?action=tag.exploded');
    expect(badAction.body.error).toMatchObject({ code: 'validation_error', field: 'action' });
  });

  it('shows an organization’s log to its keys only', async () => {
    const acme = await organizationWithKey(t, owner.email, 'Acme');
    const globex = await organizationWithKey(t, outsider.email, 'Globex');
    const created = await request(t, 'POST', '/v1/tags', { key: acme.key, body: { title: 'Acme lobby' } });
    expect(created.status).toBe(201);

    const acmeLog = await auditLog(acme.key);
    expect(acmeLog.body.data.map((entry: { action: string }) => entry.action)).toEqual([
      'tag.created',
      'key.created',
      'organization.created',
    ]);
    expect(acmeLog.body.data.every((entry: { organization_id: string }) => entry.organization_id === acme.org.id)).toBe(true);

    const globexLog = await auditLog(globex.key);
    expect(globexLog.body.data.map((entry: { target_id: string }) => entry.target_id)).not.toContain(created.body.data.id);
    expect(globexLog.body.data.every((entry: { organization_id: string }) => entry.organization_id === globex.org.id)).toBe(true);
    // The owner's personal key reads their own space, not the organization's.
    const personal = await auditLog(owner.key);
    expect(personal.body.data.map((entry: { target_id: string }) => entry.target_id)).not.toContain(created.body.data.id);
  });

  it('is in the OpenAPI document', async () => {
    const document = await request(t, 'GET', '/v1/openapi.json');
    const operation = document.body.paths['/v1/audit-log'].get;
    expect(operation.operationId).toBe('listAuditLog');
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['limit', 'offset', 'action', 'actor', 'from', 'to']),
    );
  });
});
