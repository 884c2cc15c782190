import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '../../src/features/accounts/index.js';
import { OPERATOR } from '../../src/features/accounts/index.js';
import { mailDeliveryJob } from '../../src/jobs/mail-delivery.js';
import { weeklyReportJob } from '../../src/jobs/weekly-report.js';
import { createAccount, createKey, type Account, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { useMailbox } from '../helpers/mailbox.js';
import { createTag, view, visitorId } from '../analytics/support.js';
import { csrfOf, get, post, signInHttp } from '../dashboard/support.js';

/** Sets the weekly report through the Account page's form. */
async function chooseWeeklyReport(t: TestApp, account: Account, enabled: boolean) {
  const jar = await signInHttp(t, account.email);
  const page = await get(t, '/dashboard/account', jar);
  expect(page.text).toContain('Mail me the weekly report');
  const saved = await post(t, '/dashboard/account/weekly-report', jar, {
    _csrf: csrfOf(page),
    ...(enabled ? { weekly_report: 'yes' } : {}),
  });
  expect(saved.headers.get('location')).toBe('/dashboard/account?weekly-report=saved');
  const after = await get(t, '/dashboard/account?weekly-report=saved', jar);
  expect(after.text).toContain(enabled ? 'The weekly report is on.' : 'The weekly report is off.');
}

async function runJobs(t: TestApp) {
  await weeklyReportJob.run(t.services);
  await mailDeliveryJob.run(t.services);
}

/**
 * Ada (Asia/Tokyo) owns a personal tag and the organization Acme's tag; another reader is on
 * the Free plan, in UTC. The week reported is Monday 23 to Sunday 29 November 2026 in Tokyo;
 * the week before is 16 to 22 November.
 */
describe('the weekly report', () => {
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url, TRUST_PROXY: 'loopback' } }));
  let ada: Account;
  let utc: Account;

  beforeAll(async () => {
    t.clock.freeze(new Date('2026-11-02T08:00:00.000Z'));
    ada = await createAccount(t, 'pro');
    utc = await createAccount(t, 'free');
    await accounts.setTimeZone(t.services, await signedIn(t, ada), { time_zone: 'Asia/Tokyo' });
    const acme = await accounts.createOrganization(t.services, OPERATOR, { name: 'Acme <Labs>', ownerEmail: ada.email, plan: 'pro' });
    const orgKey = await createKey(t, ada.email, { organizationId: acme.id });
    const personal = await createTag(t, ada.key, { title: 'Menu & prices' });
    const second = await createTag(t, ada.key, { title: 'Second tag' });
    const office = await createTag(t, orgKey.key, { title: 'Office door' });
    const [V1, V2, V3] = ['w1', 'w2', 'w3'].map(visitorId);
    // The week before: two views of the menu by V1.
    await view(t, personal.short_id, { at: '2026-11-17T03:00:00.000Z', visitor: V1 });
    await view(t, personal.short_id, { at: '2026-11-20T03:00:00.000Z', visitor: V1 });
    // The week: the menu three times (V1, V2 twice), the second tag once (V3), Acme's door once.
    await view(t, personal.short_id, { at: '2026-11-24T03:00:00.000Z', visitor: V1 });
    await view(t, personal.short_id, { at: '2026-11-25T03:00:00.000Z', visitor: V2 });
    await view(t, personal.short_id, { at: '2026-11-26T03:00:00.000Z', visitor: V2 });
    await view(t, second.short_id, { at: '2026-11-27T03:00:00.000Z', visitor: V3 });
    await view(t, office.short_id, { at: '2026-11-28T03:00:00.000Z', visitor: V3 });
    // Out of both weeks: Monday 30 November in Tokyo.
    await view(t, personal.short_id, { at: '2026-11-29T16:00:00.000Z', visitor: V1 });
    t.clock.freeze(new Date('2026-11-29T14:00:00.000Z'));
    await chooseWeeklyReport(t, ada, true);
    await chooseWeeklyReport(t, utc, true);
  });

  it('waits for Monday in the reader’s time zone', async () => {
    // Sunday 23:00 in Tokyo.
    await runJobs(t);
    expect(mailbox.to(ada.email)).toHaveLength(0);
  });

  it('mails each workspace’s views, visitors and top tags with the change from the week before', async () => {
    // Monday 01:30 in Tokyo, still Sunday in UTC.
    t.clock.freeze(new Date('2026-11-29T16:30:00.000Z'));
    await runJobs(t);
    expect(mailbox.to(utc.email)).toHaveLength(0);
    const [mail] = mailbox.to(ada.email);
    expect(mail!.message.subject).toBe('Your tagsvc week: 2026-11-23 to 2026-11-29');
    expect(mail!.message.text).toBe(
      [
        'Your tags in the week of 2026-11-23 to 2026-11-29, with the change from the week before.',
        '',
        'Personal',
        'Views: 4 (+100 %; 2 the week before)',
        'Visitors: 3 (+200 %; 1 the week before)',
        'Top tags:',
        '1. Menu & prices: 3 views',
        '2. Second tag: 1 view',
        '',
        'Acme <Labs>',
        'Views: 1 (new; 0 the week before)',
        'Visitors: 1 (new; 0 the week before)',
        'Top tags:',
        '1. Office door: 1 view',
        '',
        'Open the dashboard: http://tagsvc.test/dashboard/analytics',
        'Stop these mails on your Account page: http://tagsvc.test/dashboard/account',
        '',
      ].join('\n'),
    );
    expect(mail!.message.html).toContain('<h2 style="font-size:1.1rem">Acme &lt;Labs&gt;</h2>');
    expect(mail!.message.html).toContain('<li>Menu &amp; prices: 3 views</li>');
  });

  it('sends each week once, whatever runs the job, and two workers at once', async () => {
    t.clock.advance(60 * 60 * 1000);
    await runJobs(t);
    expect(mailbox.to(ada.email)).toHaveLength(1);
    // UTC's Monday: the UTC reader's report, and none again for Ada.
    t.clock.freeze(new Date('2026-11-30T06:00:00.000Z'));
    await Promise.all([weeklyReportJob.run(t.services), weeklyReportJob.run(t.services)]);
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to(utc.email)).toHaveLength(1);
    // Free keeps 7 days: Tuesday to Sunday, and no week before.
    expect(mailbox.to(utc.email)[0]!.message.text).toContain(
      'Personal\nViews: 0\nVisitors: 0\nCounted from 2026-11-24, the oldest day the plan keeps; no week before to compare.\nNo tag was viewed.\n',
    );
    expect(mailbox.to(ada.email)).toHaveLength(1);
    const rows = await t.database.db
      .selectFrom('users')
      .select(['id', 'weekly_report_week'])
      .where('id', 'in', [ada.userId, utc.userId])
      .execute();
    expect(rows.map((row) => row.weekly_report_week)).toEqual(['2026-W48', '2026-W48']);
  });

  it('stops once the reader turns it off', async () => {
    await chooseWeeklyReport(t, ada, false);
    t.clock.freeze(new Date('2026-12-06T16:30:00.000Z'));
    await runJobs(t);
    expect(mailbox.to(ada.email)).toHaveLength(1);
    const actions = await t.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', ada.userId)
      .orderBy('id')
      .execute();
    expect(actions.map((row) => row.action).filter((action) => action.startsWith('user.weekly_report'))).toEqual([
      'user.weekly_report_enabled',
      'user.weekly_report_disabled',
    ]);
  });
});

async function signedIn(t: TestApp, account: Account) {
  const jar = await signInHttp(t, account.email);
  return (await accounts.findSignedInUser(t.services, jar.cookies.get('tagsvc_session')))!;
}
