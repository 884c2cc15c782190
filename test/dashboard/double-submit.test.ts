import { describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { mailDeliveryJob } from '../../src/jobs/mail-delivery.js';
import { createAccount } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { useMailbox } from '../helpers/mailbox.js';

/**
 * A form sent twice at once (a double click, a retried request): the second finds what the
 * first did, with the answer a second send would get, never a 500 and never a duplicate. On
 * PostgreSQL the two run at the same time; on SQLite their password hashing does.
 */
describe('the same form sent twice at once', () => {
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url } }));

  it('sign-up makes one account; the other send is told the address is taken', async () => {
    const input = { email: 'twice@example.com', password: 'a good password', plan: 'pro' as const };
    const results = await Promise.allSettled([accounts.signUp(t.services, input), accounts.signUp(t.services, input)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: 'validation_error', details: { field: 'email' } });
  });

  it('an invitation leaves one open invite, and its link accepted twice makes one account that joins once', async () => {
    const owner = await createAccount(t, 'pro');
    const org = await accounts.createOrganization(t.services, OPERATOR, { name: 'Twice', ownerEmail: owner.email, plan: 'pro' });
    const as = accounts.actorOfUser({ ...owner, plan: 'pro' });
    const invite = { organizationId: org.id, email: 'invited-twice@example.com', role: 'editor' };
    await Promise.all([accounts.inviteMember(t.services, as, invite), accounts.inviteMember(t.services, as, invite)]);
    const open = await accounts.listInvites(t.services, as, { organizationId: org.id });
    expect(open.map((i) => i.email)).toEqual(['invited-twice@example.com']);

    await mailDeliveryJob.run(t.services);
    const token = mailbox.linkTo('invited-twice@example.com', '/dashboard/invites/accept').searchParams.get('token')!;
    const accept = () => accounts.acceptInvite(t.services, { token, password: 'another good password' });
    const outcomes = await Promise.all([accept(), accept()]);
    expect(outcomes.map((o) => o.state).sort()).toEqual(['accepted', 'valid']);
    const joined = outcomes.find((o) => o.state === 'valid')!;
    const members = await accounts.getOrganization(t.services, OPERATOR, { organizationId: org.id });
    expect(members.members.filter((m) => m.email === 'invited-twice@example.com')).toEqual([
      expect.objectContaining({ user_id: joined.userId, role: 'editor' }),
    ]);
  });
});
