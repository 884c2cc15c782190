import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, request, runCli, startTestApp, type TestApp } from '../helpers/app.js';

/** The command line against the same database as a running server, as an operator uses it. */
describe('tagsvc command line', () => {
  let t: TestApp;
  const email = 'ops@example.com';

  async function cli(...args: string[]) {
    const result = await runCli([...args, '--json'], t.env);
    if (result.code !== 0) throw new Error(`tagsvc ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  beforeAll(async () => {
    t = await startTestApp();
    await cli('user', 'create', '--email', email, '--password', 'long enough password', '--plan', 'pro');
  });
  afterAll(() => t.close());

  it('creates a key and prints exactly the documented fields', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'deploy', '--permissions', 'tags:read,files:read');
    expect(Object.keys(created).sort()).toEqual(['environment', 'id', 'key', 'name', 'permissions', 'prefix', 'scope']);
    expect(created.id).toMatch(/^key_/);
    expect(created.key).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    expect(created).toMatchObject({ name: 'deploy', permissions: ['tags:read', 'files:read'], environment: 'live', scope: 'personal' });
    const me = await request(t, 'GET', '/v1/me', { key: created.key });
    expect(me.status).toBe(200);
    expect(me.body.data.key.permissions).toEqual(['tags:read', 'files:read']);
  });

  it('creates test keys and all-permission keys by default', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'sandbox', '--test');
    expect(created.key).toMatch(/^svc_test_/);
    expect(created.environment).toBe('test');
    expect(created.permissions).toHaveLength(8);
  });

  it('disable takes effect on the next request, enable restores the key', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'to-disable');
    expect((await request(t, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
    const disabled = await cli('key', 'disable', '--id', created.id);
    expect(disabled.enabled).toBe(false);
    expectError(await request(t, 'GET', '/v1/me', { key: created.key }), 401, 'unauthorized');
    await cli('key', 'enable', '--id', created.id);
    expect((await request(t, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
  });

  it('regenerate prints a new key and the old value stops at once', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'to-rotate');
    expect((await request(t, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
    const rotated = await cli('key', 'regenerate', '--id', created.id);
    expect(rotated.key).toMatch(/^svc_live_/);
    expect(rotated.key).not.toBe(created.key);
    expectError(await request(t, 'GET', '/v1/me', { key: created.key }), 401, 'unauthorized');
    expect((await request(t, 'GET', '/v1/me', { key: rotated.key })).body.data.key.id).toBe(created.id);
  });

  it('delete removes the key for good', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'to-delete');
    await cli('key', 'delete', '--id', created.id);
    expectError(await request(t, 'GET', '/v1/me', { key: created.key }), 401, 'unauthorized');
    const failed = await runCli(['key', 'enable', '--id', created.id], t.env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/not found/);
  });

  it('lists keys by display prefix, never by value or hash', async () => {
    const created = await cli('key', 'create', '--email', email, '--name', 'listed', '--ip', '203.0.113.0/24,2001:db8::/32');
    const listed = await cli('key', 'list', '--email', email);
    const entry = listed.find((k: { id: string }) => k.id === created.id);
    expect(entry).toMatchObject({
      name: 'listed',
      prefix: created.prefix,
      enabled: true,
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
    });
    const text = JSON.stringify(listed);
    expect(text).not.toContain(created.key);
    expect(text).not.toMatch(/hash/);
  });

  it('creates organizations, adds members and lets only owners and admins create their keys', async () => {
    await cli('user', 'create', '--email', 'admin@example.com', '--password', 'long enough password', '--plan', 'pro');
    await cli('user', 'create', '--email', 'member@example.com', '--password', 'long enough password', '--plan', 'pro');
    const org = await cli('org', 'create', '--name', 'Acme', '--owner', email, '--plan', 'enterprise');
    expect(org).toMatchObject({ name: 'Acme', plan: 'enterprise', owner: { email } });
    await cli('org', 'add-member', '--org', org.id, '--email', 'admin@example.com', '--role', 'admin');
    await cli('org', 'add-member', '--org', org.id, '--email', 'member@example.com', '--role', 'member');
    const byAdmin = await cli('key', 'create', '--email', 'admin@example.com', '--name', 'org key', '--org', org.id);
    expect(byAdmin.scope).toBe('organization');
    const me = await request(t, 'GET', '/v1/me', { key: byAdmin.key });
    expect(me.body.data.organization).toEqual({ id: org.id, name: 'Acme' });
    expect(me.body.data.plan).toBe('enterprise');
    const byMember = await runCli(['key', 'create', '--email', 'member@example.com', '--name', 'nope', '--org', org.id, '--json'], t.env);
    expect(byMember.code).toBe(1);
    expect(JSON.parse(byMember.stderr).error.code).toBe('forbidden');
  });

  it('rejects bad input with exit code 1 and names the field', async () => {
    const badPermission = await runCli(['key', 'create', '--email', email, '--name', 'x', '--permissions', 'tags:fly', '--json'], t.env);
    expect(badPermission.code).toBe(1);
    expect(JSON.parse(badPermission.stderr).error).toMatchObject({ code: 'validation_error', field: 'permissions' });
    const badIp = await runCli(['key', 'create', '--email', email, '--name', 'x', '--ip', '300.1.1.1', '--json'], t.env);
    expect(JSON.parse(badIp.stderr).error.field).toBe('ip');
    const badPlan = await runCli(
      ['user', 'create', '--email', 'p@example.com', '--password', 'long enough password', '--plan', 'gold', '--json'],
      t.env,
    );
    expect(JSON.parse(badPlan.stderr).error.field).toBe('plan');
    const duplicate = await runCli(
      ['user', 'create', '--email', email, '--password', 'long enough password', '--plan', 'pro', '--json'],
      t.env,
    );
    expect(JSON.parse(duplicate.stderr).error.field).toBe('email');
  });

  it('answers misuse with exit code 2 and the usage text', async () => {
    const unknown = await runCli(['key', 'fly'], t.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage: tagsvc');
    const missing = await runCli(['key', 'create', '--email', email], t.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name is required');
    const unknownFlag = await runCli(['migrate', '--fast'], t.env);
    expect(unknownFlag.code).toBe(2);
  });

  it('migrate is idempotent', async () => {
    expect(await cli('migrate')).toEqual({ applied: [] });
  });
});
