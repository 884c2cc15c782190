import { describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { createAccount, createKey, request } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { CookieJar, csrfOf, get, post, signInHttp, PASSWORD } from '../dashboard/support.js';

const t = useApp();
const alice = useAccount(t, 'enterprise');
const bob = useAccount(t, 'pro');

/** The actions of the rows of an audit log page, top to bottom. */
const actionsOf = (html: string) =>
  [...html.matchAll(/<th scope="row" data-label="Action"><code>([a-z_.]+)<\/code>/g)].map((match) => match[1]);

describe('the Audit log page', () => {
  it('lists the workspace’s entries newest first, filtered by action, actor and dates', async () => {
    const jar = await signInHttp(t, alice.email);
    await request(t, 'POST', '/v1/tags', { key: alice.key, body: { title: 'Entrance' } });
    const page = await get(t, '/dashboard/audit-log', jar);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/dashboard/audit-log" aria-current="page">Audit log</a>');
    expect(actionsOf(page.text).slice(0, 3)).toEqual(['tag.created', 'user.signed_in', 'key.created']);

    const signIns = await get(t, '/dashboard/audit-log?action=user.signed_in', jar);
    expect(actionsOf(signIns.text)).toEqual(['user.signed_in']);
    const byKey = await get(t, '/dashboard/audit-log?actor=default', jar);
    expect(actionsOf(byKey.text)).toEqual(['tag.created']);
    const tomorrow = new Date(t.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    const later = await get(t, `/dashboard/audit-log?from=${tomorrow}`, jar);
    expect(actionsOf(later.text)).toEqual([]);
    expect(later.text).toContain('No entries match these filters.');

    const bad = await get(t, '/dashboard/audit-log?from=soon', jar);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('from must be a date (YYYY-MM-DD) or an ISO 8601 time');
  });

  it('pages through long logs, 50 entries a page', async () => {
    const jar = await signInHttp(t, bob.email);
    for (let i = 0; i < 51; i++)
      await accounts.setTimeZone(t.services, { ...(await signedIn(bob.email)), origin: undefined }, { time_zone: 'UTC' });
    const first = await get(t, '/dashboard/audit-log?action=user.time_zone_changed', jar);
    expect(actionsOf(first.text)).toHaveLength(50);
    expect(first.text).toContain('1–50 of 51');
    const second = await get(t, '/dashboard/audit-log?action=user.time_zone_changed&page=2', jar);
    expect(actionsOf(second.text)).toHaveLength(1);
    // A page far past the end, written any way a number can be, is an empty page, never a 500.
    for (const page of ['1e300', 'Infinity', '-5', 'x']) {
      const beyond = await get(t, `/dashboard/audit-log?action=user.time_zone_changed&page=${page}`, jar);
      expect(beyond.status).toBe(200);
    }
  });

  it('downloads the filtered log as CSV, with cells a spreadsheet would run made text', async () => {
    const formula = await createKey(t, alice.email, { name: '=HYPERLINK("http://evil.example","x")' });
    expect((await request(t, 'POST', '/v1/tags', { key: formula.key, body: { title: 'By formula' } })).status).toBe(201);
    const jar = await signInHttp(t, alice.email);
    const csv = await get(t, '/dashboard/audit-log/export.csv?action=tag.created', jar);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="audit-log.csv"');
    const lines = csv.text.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'created_at,action,actor_type,actor_id,actor_name,target_id,ip,request_id,environment,organization_id,user_id,details',
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,tag.created,key,${formula.id},"'=HYPERLINK(""http://evil.example"",""x"")",tag_`);
    expect(lines[2]).toContain(',tag.created,key,');
  });

  it('shows an organization’s log to its owner and admins, and never to another workspace', async () => {
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Initech', ownerEmail: alice.email, plan: 'enterprise' });
    const orgKey = await createKey(t, alice.email, { organizationId: org.id, name: 'initech ci' });
    const created = await request(t, 'POST', '/v1/tags', { key: orgKey.key, body: { title: 'Initech lobby' } });
    const tagId: string = created.body.data.id;

    const alices = await signInHttp(t, alice.email);
    alices.cookies.set('tagsvc_workspace', `live:${org.id}`);
    const orgLog = await get(t, '/dashboard/audit-log', alices);
    expect(orgLog.text).toContain(tagId);
    expect(orgLog.text).toContain('the organization Initech');
    const personal = await get(t, '/dashboard/audit-log', await signInHttp(t, alice.email));
    expect(personal.text).not.toContain(tagId);

    // An editor works in the organization's workspace but does not read its log: no nav item, a 404.
    const carol = await createAccount(t, 'pro');
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: carol.email, role: 'editor' });
    const carols = await signInHttp(t, carol.email);
    carols.cookies.set('tagsvc_workspace', `live:${org.id}`);
    const editorHome = await get(t, '/dashboard/tags', carols);
    expect(editorHome.status).toBe(200);
    expect(editorHome.text).not.toContain('href="/dashboard/audit-log"');
    expect((await get(t, '/dashboard/audit-log', carols)).status).toBe(404);
    expect((await get(t, '/dashboard/audit-log/export.csv', carols)).status).toBe(404);

    // Bob is not a member: his cookie naming the organization gives him his own workspace.
    const bobs = await signInHttp(t, bob.email);
    bobs.cookies.set('tagsvc_workspace', `live:${org.id}`);
    const bobsLog = await get(t, '/dashboard/audit-log', bobs);
    expect(bobsLog.status).toBe(200);
    expect(bobsLog.text).not.toContain(tagId);
    expect((await get(t, '/dashboard/audit-log/export.csv', bobs)).text).not.toContain(tagId);
    // Nor is the whole instance his to see.
    expect((await get(t, '/dashboard/audit-log?scope=instance', bobs)).status).toBe(404);
  });

  it('shows the instance owner the whole instance, a failed sign-in of an unknown address included', async () => {
    await accounts.createUser(t.services, OPERATOR, { email: 'owner@example.com', password: PASSWORD, plan: 'enterprise', owner: true });
    const stranger = new CookieJar();
    const form = await get(t, '/dashboard/login', stranger);
    await post(t, '/dashboard/login', stranger, { _csrf: csrfOf(form), email: 'who@example.com', password: 'guessing' });

    const jar = await signInHttp(t, 'owner@example.com');
    const own = await get(t, '/dashboard/audit-log?action=user.sign_in_failed', jar);
    expect(actionsOf(own.text)).toEqual([]);
    expect(own.text).toContain('<option value="instance"');
    const instance = await get(t, '/dashboard/audit-log?action=user.sign_in_failed&scope=instance', jar);
    expect(actionsOf(instance.text)).toEqual(['user.sign_in_failed']);
    expect(instance.text).toContain('Not signed in');
    expect(instance.text).not.toContain('who@example.com');
  });
});

/** The user as the dashboard has them once signed in (for calling an account service directly). */
async function signedIn(email: string): Promise<accounts.SignedInUser> {
  const row = await t.database.db.selectFrom('users').select(['id', 'plan']).where('email', '=', email).executeTakeFirstOrThrow();
  return { sessionId: 'ses_none', userId: row.id, email, plan: row.plan, isOwner: false, timeZone: null, mustEnrol: false };
}
