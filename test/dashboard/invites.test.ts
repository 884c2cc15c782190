import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { INVITE_LIFETIME_MS, OPERATOR } from '../../src/features/accounts/index.js';
import { mailDeliveryJob } from '../../src/jobs/mail-delivery.js';
import { INVITES_PER_HOUR } from '../../src/dashboard/organizations/organizations.routes.js';
import { createAccount, type Account, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { useMailbox, type Mailbox } from '../helpers/mailbox.js';
import { expectAccessible, newPage, useBrowser } from '../helpers/browser.js';
import { CookieJar, csrfOf, get, isSignedIn, post, screenshots, signInBrowser, signInHttp } from './support.js';

/** The path and query of the invitation link in the last mail to `email` (the mail names PUBLIC_BASE_URL). */
async function invitationPath(t: TestApp, mailbox: Mailbox, email: string): Promise<string> {
  await mailDeliveryJob.run(t.services);
  const link = mailbox.linkTo(email, '/dashboard/invites/accept');
  expect(link.origin).toBe('http://tagsvc.test');
  return `${link.pathname}${link.search}`;
}

/**
 * Invitations: an owner or admin invites an address with a role; the mailed link lets the
 * invitee create that one account (sign-up closed) or join with theirs; invites expire after
 * seven days, can be revoked, and are listed while open.
 */
describe('organization invitations', () => {
  const holder = useBrowser();
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url, SIGNUP: 'closed' } }));
  let owner: Account;
  let org: { id: string; name: string };
  let ownerJar: CookieJar;

  beforeAll(async () => {
    owner = await createAccount(t, 'pro');
    org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme <Labs>', ownerEmail: owner.email, plan: 'enterprise' });
    ownerJar = await signInHttp(t, owner.email);
  });

  const orgPath = () => `/dashboard/organizations/${org.id}`;

  async function invite(email: string, role: string) {
    const page = await get(t, orgPath(), ownerJar);
    expect(page.status, page.headers.get('location') ?? '').toBe(200);
    return post(t, `${orgPath()}/invites`, ownerJar, { _csrf: csrfOf(page), email, role });
  }

  it('mails a link with which a new person creates their account while sign-up is closed, and joins with the role', async () => {
    const answer = await invite('New.Person@Example.com', 'editor');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`${orgPath()}?done=invited`);
    const pending = await get(t, orgPath(), ownerJar);
    expect(pending.text).toContain('Pending invitations');
    expect(pending.text).toContain('new.person@example.com');

    const path = await invitationPath(t, mailbox, 'new.person@example.com');
    const [mail] = mailbox.to('new.person@example.com');
    expect(mail!.message.subject).toBe(`${owner.email} invited you to Acme <Labs> on tagsvc`);
    expect(mail!.message.html).toContain('Acme &lt;Labs&gt;');
    expect(mail!.message.text).toContain('as an editor');

    const jar = new CookieJar();
    const page = await get(t, path, jar);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Join Acme &lt;Labs></h1>');
    expect(page.text).toContain('Create account and join');
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1]!;
    // A refused password creates nothing and leaves the invitation open.
    const short = await post(t, '/dashboard/invites/accept', jar, { _csrf: csrfOf(page), token, password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('Password must be at least 8 characters.');
    const joined = await post(t, '/dashboard/invites/accept', jar, {
      _csrf: csrfOf(page),
      token,
      password: 'a good password',
      confirm: 'a good password',
    });
    expect(joined.status).toBe(303);
    expect(joined.headers.get('location')).toBe(`${orgPath()}?done=joined`);
    expect(await isSignedIn(t, jar)).toBe(true);

    const members = (await accounts.getOrganization(t.services, OPERATOR, { organizationId: org.id })).members;
    expect(members.map((member) => [member.email, member.role])).toContainEqual(['new.person@example.com', 'editor']);
    // The link is spent, and the invitation no longer pending.
    expect((await get(t, path, new CookieJar())).status).toBe(410);
    expect((await get(t, orgPath(), ownerJar)).text).toContain('No invitation is waiting for an answer.');
    // The new account's address is verified (the invite proved it), and it signs in with its password.
    await signInHttp(t, 'new.person@example.com', 'a good password');
  });

  it('lets an existing user join from the link, or from the Organizations page, and refuses another signed-in user', async () => {
    const bob = await createAccount(t, 'pro');
    const carol = await createAccount(t, 'pro');
    await invite(bob.email, 'viewer');
    const path = await invitationPath(t, mailbox, bob.email);

    // Signed out: the page asks to sign in; no account is created for an address that has one.
    const signedOut = await get(t, path, new CookieJar());
    expect(signedOut.text).toContain(`An account already uses ${bob.email}. Sign in to it`);
    expect(signedOut.text).not.toContain('Create account and join');

    // Another user signed in is told, and cannot accept it.
    const carolJar = await signInHttp(t, carol.email);
    const asCarol = await get(t, path, carolJar);
    expect(asCarol.text).toContain(`You are signed in as ${carol.email}, and this invitation is for ${bob.email}.`);
    const token = /token=([^&]+)/.exec(path)![1]!;
    expect(asCarol.text).not.toContain('<form method="post" action="/dashboard/invites/accept"');
    const carolsForm = await get(t, '/dashboard/organizations', carolJar);
    const refused = await post(t, '/dashboard/invites/accept', carolJar, { _csrf: csrfOf(carolsForm), token });
    expect(refused.status).toBe(403);

    // Bob sees it on the Organizations page and joins there.
    const bobJar = await signInHttp(t, bob.email);
    const list = await get(t, '/dashboard/organizations', bobJar);
    expect(list.text).toContain('Invitations for you');
    const inviteId = /\/dashboard\/organizations\/invites\/(inv_[a-z0-9]+)\/accept/.exec(list.text)![1]!;
    const accepted = await post(t, `/dashboard/organizations/invites/${inviteId}/accept`, bobJar, { _csrf: csrfOf(list) });
    expect(accepted.status).toBe(303);
    const read = await accounts.getOrganization(t.services, accounts.actorOfUser({ ...bob, plan: 'pro' }), { organizationId: org.id });
    expect(read.role).toBe('viewer');
    expect((await get(t, path, new CookieJar())).text).toContain('This invitation was already accepted');
  });

  it('sends a signed-in invitee who owes the required second factor to set it up before accepting', async () => {
    const dave = await createAccount(t, 'pro');
    await invite(dave.email, 'editor');
    const path = await invitationPath(t, mailbox, dave.email);
    await accounts.setTwoFactorRequired(t.services, OPERATOR, { required: true });
    try {
      const daveJar = await signInHttp(t, dave.email);
      const page = await get(t, path, daveJar);
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/dashboard/account/two-factor');
      const enrol = await get(t, '/dashboard/account/two-factor', daveJar);
      expect(enrol.status).toBe(200);
      const token = decodeURIComponent(/token=([^&]+)/.exec(path)![1]!);
      const posted = await post(t, '/dashboard/invites/accept', daveJar, { _csrf: csrfOf(enrol), token });
      expect(posted.status).toBe(303);
      expect(posted.headers.get('location')).toBe('/dashboard/account/two-factor');
      const members = (await accounts.getOrganization(t.services, OPERATOR, { organizationId: org.id })).members;
      expect(members.map((member) => member.email)).not.toContain(dave.email);
      // Signed out, the link still shows the invitation: it waits until they have enrolled.
      expect((await get(t, path, new CookieJar())).status).toBe(200);
    } finally {
      await accounts.setTwoFactorRequired(t.services, OPERATOR, { required: false });
    }
  });

  it('expires after seven days, stops at revoke, and is replaced by a new invitation to the same address', async () => {
    await invite('late@example.com', 'viewer');
    const late = await invitationPath(t, mailbox, 'late@example.com');
    t.clock.advance(INVITE_LIFETIME_MS - 60_000);
    expect((await get(t, late, new CookieJar())).status).toBe(200);
    t.clock.advance(60_000);
    const expired = await get(t, late, new CookieJar());
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('This invitation has expired');
    // A week passed: the owner's session is over too.
    ownerJar = await signInHttp(t, owner.email);
    expect((await get(t, orgPath(), ownerJar)).text).not.toContain('late@example.com');

    await invite('gone@example.com', 'admin');
    const first = await invitationPath(t, mailbox, 'gone@example.com');
    await invite('gone@example.com', 'editor');
    const second = await invitationPath(t, mailbox, 'gone@example.com');
    expect((await get(t, first, new CookieJar())).text).toContain('This invitation was withdrawn');
    const page = await get(t, orgPath(), ownerJar);
    const inviteId = new RegExp(`/invites/(inv_[a-z0-9]+)/revoke`).exec(page.text)![1]!;
    const revoked = await post(t, `${orgPath()}/invites/${inviteId}/revoke`, ownerJar, { _csrf: csrfOf(page) });
    expect(revoked.headers.get('location')).toBe(`${orgPath()}?done=revoked`);
    const after = await get(t, second, new CookieJar());
    expect(after.status).toBe(410);
    expect(after.text).toContain('This invitation was withdrawn');
  });

  it('refuses bad input on its fields, a member’s address, and anyone but owners and admins', async () => {
    const badEmail = await invite('not-an-address', 'viewer');
    expect(badEmail.status).toBe(400);
    expect(badEmail.text).toContain('id="field-email-error"');
    const badRole = await invite('x@example.com', 'owner');
    expect(badRole.status).toBe(400);
    expect(badRole.text).toContain('id="field-role-error"');
    const member = await invite(owner.email, 'viewer');
    expect(member.status).toBe(400);
    // The form starts the service's message with a capital, as a sentence.
    expect(member.text.toLowerCase()).toContain(`${owner.email} is already a member of acme &lt;labs>.`);

    const editor = await createAccount(t, 'pro');
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: editor.email, role: 'editor' });
    const as = accounts.actorOfUser({ ...editor, plan: 'pro' });
    await expect(
      accounts.inviteMember(t.services, as, { organizationId: org.id, email: 'y@example.com', role: 'viewer' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
    const jar = await signInHttp(t, editor.email);
    const page = await get(t, orgPath(), jar);
    expect(page.text).not.toContain('Invite someone');
    expect((await post(t, `${orgPath()}/invites`, jar, { _csrf: csrfOf(page), email: 'y@example.com', role: 'viewer' })).status).toBe(403);
    const outsider = await signInHttp(t, (await createAccount(t, 'pro')).email);
    const outsiderPage = await get(t, '/dashboard/organizations', outsider);
    expect(
      (await post(t, `${orgPath()}/invites`, outsider, { _csrf: csrfOf(outsiderPage), email: 'z@example.com', role: 'viewer' })).status,
    ).toBe(404);
  });

  it('stops working when its sender stops administering; an unverified sender and too many invitations are refused', async () => {
    const admin = await createAccount(t, 'pro');
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: admin.email, role: 'admin' });
    const adminJar = await signInHttp(t, admin.email);
    const page = await get(t, orgPath(), adminJar);
    await post(t, `${orgPath()}/invites`, adminJar, { _csrf: csrfOf(page), email: 'friend-of-admin@example.com', role: 'admin' });
    const path = await invitationPath(t, mailbox, 'friend-of-admin@example.com');
    await accounts.changeMemberRole(t.services, OPERATOR, { organizationId: org.id, userId: admin.userId, role: 'editor' });
    expect((await get(t, path, new CookieJar())).text).toContain('This invitation was withdrawn');

    const unverified = await accounts.signUp(t.services, {
      email: 'unverified-owner@example.com',
      password: 'a good password',
      plan: 'pro',
    });
    const own = await accounts.createOrganization(t.services, OPERATOR, {
      name: 'Unproven',
      ownerEmail: unverified.email,
      plan: 'pro',
    });
    const as = accounts.actorOfUser({ userId: unverified.id, email: unverified.email, plan: 'pro' });
    await expect(
      accounts.inviteMember(t.services, as, { organizationId: own.id, email: 'target@example.com', role: 'viewer' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });

    const sender = await createAccount(t, 'pro');
    const limited = await accounts.createOrganization(t.services, OPERATOR, { name: 'Busy', ownerEmail: sender.email, plan: 'pro' });
    const jar = await signInHttp(t, sender.email);
    const form = await get(t, `/dashboard/organizations/${limited.id}`, jar);
    const send = (i: number) =>
      post(t, `/dashboard/organizations/${limited.id}/invites`, jar, {
        _csrf: csrfOf(form),
        email: `many-${i}@example.com`,
        role: 'viewer',
      });
    for (let i = 0; i < INVITES_PER_HOUR; i++) expect((await send(i)).status).toBe(303);
    const refused = await send(INVITES_PER_HOUR);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain(`You sent ${INVITES_PER_HOUR} invitations in the last hour`);
    expect(
      await accounts.listInvites(t.services, accounts.actorOfUser({ ...sender, plan: 'pro' }), { organizationId: limited.id }),
    ).toHaveLength(INVITES_PER_HOUR);
  });

  it('in the browser: the owner invites, the invitee creates an account from the mailed link and lands in the organization', async () => {
    const owning = await newPage(holder.browser);
    await signInBrowser(owning.page, t.baseUrl, owner.email);
    await owning.page.goto(`${t.baseUrl}${orgPath()}`);
    await owning.page.getByLabel('Email').fill('browser.invitee@example.com');
    await owning.page.getByLabel('Role').selectOption('viewer');
    await owning.page.getByRole('button', { name: 'Send invitation' }).click();
    await owning.page.waitForURL(/done=invited/);
    await expect(owning.page.getByRole('status').textContent()).resolves.toContain('Invitation sent.');
    await expect(owning.page.getByRole('rowheader', { name: 'browser.invitee@example.com' }).isVisible()).resolves.toBe(true);
    await expectAccessible(owning.page);
    await screenshots(owning.page, 'invites-owner');
    await owning.context.close();

    const path = await invitationPath(t, mailbox, 'browser.invitee@example.com');
    const { context, page } = await newPage(holder.browser);
    await page.goto(`${t.baseUrl}${path}`);
    await expect(page.getByRole('heading', { name: 'Join Acme <Labs>' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'invites-accept');
    await page.getByLabel('Password', { exact: true }).fill('browser password');
    await page.getByLabel('Confirm password').fill('browser password');
    await page.getByRole('button', { name: 'Create account and join' }).click();
    await page.waitForURL(/done=joined/);
    await expect(page.getByText('You joined the organization.').isVisible()).resolves.toBe(true);
    await expect(page.getByText('Your role: Viewer').isVisible()).resolves.toBe(true);
    await context.close();
  });

  it('in the browser: a signed-in invitee who owes the required second factor is shown the set-up page; once nothing is owed, the link joins', async () => {
    const erin = await createAccount(t, 'pro');
    await invite(erin.email, 'viewer');
    const path = await invitationPath(t, mailbox, erin.email);
    const { context, page } = await newPage(holder.browser);
    await signInBrowser(page, t.baseUrl, erin.email);
    await accounts.setTwoFactorRequired(t.services, OPERATOR, { required: true });
    try {
      await page.goto(`${t.baseUrl}${path}`);
      await page.waitForURL(`${t.baseUrl}/dashboard/account/two-factor`);
      await expect(page.getByText('An invitation you opened waits for you on the Organizations page.').isVisible()).resolves.toBe(true);
      await expect(page.getByRole('heading', { name: 'Authenticator app' }).isVisible()).resolves.toBe(true);
      await expectAccessible(page);
      await screenshots(page, 'invites-two-factor-first');
    } finally {
      await accounts.setTwoFactorRequired(t.services, OPERATOR, { required: false });
    }
    // Once nothing is owed, the same link joins.
    await page.goto(`${t.baseUrl}${path}`);
    await page.getByRole('button', { name: /^Join/ }).click();
    await page.waitForURL(/done=joined/);
    await expect(page.getByText('You joined the organization.').isVisible()).resolves.toBe(true);
    await context.close();
  });

  it('leaves the role of someone who became a member after the invite was sent as it is', async () => {
    const later = await createAccount(t, 'pro');
    const as = accounts.actorOfUser({ ...owner, plan: 'pro' });
    await accounts.inviteMember(t.services, as, { organizationId: org.id, email: later.email, role: 'viewer' });
    await accounts.addMember(t.services, OPERATOR, { organizationId: org.id, email: later.email, role: 'admin' });
    const path = await invitationPath(t, mailbox, later.email);
    const token = new URL(path, 'http://x').searchParams.get('token')!;
    const accepted = await accounts.acceptInvite(t.services, { token, user: { userId: later.userId, email: later.email } });
    expect(accepted.state).toBe('valid');
    const members = (await accounts.getOrganization(t.services, OPERATOR, { organizationId: org.id })).members;
    expect(members.find((m) => m.user_id === later.userId)?.role).toBe('admin');
  });
});
