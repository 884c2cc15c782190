import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { rollUpViews } from '../../src/features/analytics/index.js';
import { createKey, request, type Account } from '../helpers/app.js';
import { useAccount, useApp } from '../helpers/harness.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { UA } from '../analytics/support.js';
import { signInBrowser, signInHttp } from './support.js';

/**
 * Private tags show to their owner signed in to the dashboard, organization tags to the
 * organization's members; everyone else gets exactly the 404 of a tag that does not exist.
 */
describe('private and organization tag pages', () => {
  const holder = useBrowser();
  const t = useApp();
  const owner = useAccount(t, 'pro');
  const member = useAccount(t, 'pro');
  const outsider = useAccount(t, 'pro');
  let privateTag: { id: string; short_id: string };
  let orgTag: { id: string; short_id: string };
  let missing: string;

  async function createTag(key: string, title: string, read: string) {
    const response = await request(t, 'POST', '/v1/tags', {
      key,
      body: { title, content: [{ type: 'text', content: `${title} body` }], permissions: { read } },
    });
    expect(response.status, response.text).toBe(201);
    return response.body.data as { id: string; short_id: string };
  }

  beforeAll(async () => {
    privateTag = await createTag(owner.key, 'Owner only', 'private');
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme', ownerEmail: owner.email, plan: 'pro' });
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: member.email, role: 'viewer' });
    const orgKey = await createKey(t, owner.email, { organizationId: org.id });
    orgTag = await createTag(orgKey.key, 'Acme only', 'organization');
    // A short id no tag has: a deleted tag's.
    const gone = await createTag(owner.key, 'Deleted', 'public');
    expect((await request(t, 'DELETE', `/v1/tags/${gone.id}`, { key: owner.key })).status).toBe(200);
    missing = gone.short_id;
  });

  async function pageAs(path: string, account?: Account) {
    const cookie = account ? (await signInHttp(t, account.email)).header() : undefined;
    return request(t, 'GET', path, { headers: cookie ? { cookie } : {} });
  }

  it('shows a private tag to its signed-in owner in the browser, and counts the view', async () => {
    // Headless Chromium names itself in its user agent, which the view recorder takes for a bot.
    const { context, page } = await newPage(holder.browser, { userAgent: UA.chromeWindows });
    await signInBrowser(page, t.baseUrl, owner.email);
    const response = await page.goto(`${t.baseUrl}/t/${privateTag.short_id}`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['cache-control']).toBe('private, no-store');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Owner only');
    await expectAccessible(page);
    await rollUpViews(t.database.db);
    const views = await t.database.db.selectFrom('views').select('id').where('tag_id', '=', privateTag.id).execute();
    expect(views).toHaveLength(1);
    await context.close();
  });

  it('answers the signed-out and other users with the very 404 of a missing tag', async () => {
    const absent = await pageAs(`/t/${missing}`);
    expect(absent.status).toBe(404);
    for (const response of [
      await pageAs(`/t/${privateTag.short_id}`),
      await pageAs(`/s/${privateTag.short_id}`),
      await pageAs(`/t/${privateTag.short_id}`, outsider),
      await pageAs(`/t/${privateTag.short_id}`, member),
      await pageAs(`/t/${orgTag.short_id}`),
      await pageAs(`/t/${orgTag.short_id}`, outsider),
    ]) {
      expect(response.status).toBe(404);
      expect(response.text).toBe(absent.text);
      expect(response.headers.get('cache-control')).toBe(absent.headers.get('cache-control'));
    }
    // A forged or ended session is no one.
    const forged = await request(t, 'GET', `/t/${privateTag.short_id}`, { headers: { cookie: 'tagsvc_session=forged' } });
    expect(forged.text).toBe(absent.text);
  });

  it("shows an organization tag to the organization's members", async () => {
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, member.email);
    const response = await page.goto(`${t.baseUrl}/s/${orgTag.short_id}`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['cache-control']).toBe('private, no-store');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Acme only');
    await context.close();
    expect((await pageAs(`/t/${orgTag.short_id}`, owner)).status).toBe(200);
  });
});
