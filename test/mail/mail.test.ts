import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { transaction } from '../../src/db/transaction.js';
import { MAIL_RETRY_SCHEDULE_MS, queueMail } from '../../src/features/mail/index.js';
import { mailDeliveryJob } from '../../src/jobs/mail-delivery.js';
import { mailRetentionJob } from '../../src/jobs/mail-retention.js';
import type { TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';
import { SMTP_PASSWORD, useMailbox } from '../helpers/mailbox.js';

const LINK = 'http://tagsvc.test/dashboard/reset-password?token=abc&x=<b>';

async function queueReset(t: TestApp, to: string, link = LINK) {
  await transaction(t.services.db, (trx) => queueMail(trx, t.services, { to, template: 'password-reset', data: { link } }));
}

const outboxOf = (t: TestApp, to: string) =>
  t.services.db.selectFrom('mail_outbox').select(['status', 'attempts', 'body', 'last_error']).where('recipient', '=', to).execute();

describe('mail through SMTP_URL', () => {
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url, MAIL_FROM: 'Tags <tags@example.com>' } }));

  it('sends a mail queued in a committed transaction, from MAIL_FROM, as text and escaped HTML', async () => {
    await queueReset(t, 'ada@example.com');
    expect(mailbox.to('ada@example.com')).toHaveLength(0);
    await mailDeliveryJob.run(t.services);
    const [mail] = mailbox.to('ada@example.com');
    expect(mail!.from).toBe('tags@example.com');
    expect(mail!.message.from?.value).toEqual([{ name: 'Tags', address: 'tags@example.com' }]);
    expect(mail!.message.subject).toBe('Reset your tagsvc password');
    expect(mail!.message.text).toContain(LINK);
    expect(mail!.message.html).toContain('href="http://tagsvc.test/dashboard/reset-password?token=abc&amp;x=&lt;b&gt;"');
    // Sent: the row keeps no body (it held the link).
    expect(await outboxOf(t, 'ada@example.com')).toEqual([{ status: 'sent', attempts: 1, body: '', last_error: null }]);
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to('ada@example.com')).toHaveLength(1);
  });

  it('keeps a finished mail’s row 30 days', async () => {
    await queueReset(t, 'kept@example.com');
    await mailDeliveryJob.run(t.services);
    t.clock.advance(30 * 24 * 60 * 60 * 1000 - 60_000);
    await mailRetentionJob.run(t.services);
    expect(await outboxOf(t, 'kept@example.com')).toHaveLength(1);
    t.clock.advance(120_000);
    await mailRetentionJob.run(t.services);
    expect(await outboxOf(t, 'kept@example.com')).toEqual([]);
  });

  it('keeps the link sealed while the mail waits', async () => {
    await queueReset(t, 'sealed@example.com');
    const [row] = await outboxOf(t, 'sealed@example.com');
    expect(row!.body).toMatch(/^enc1\./);
    expect(row!.body).not.toContain('token=abc');
    await mailDeliveryJob.run(t.services);
  });

  it('sends nothing for a transaction that rolled back', async () => {
    await expect(
      transaction(t.services.db, async (trx) => {
        await queueMail(trx, t.services, { to: 'rolled@example.com', template: 'password-reset', data: { link: LINK } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to('rolled@example.com')).toHaveLength(0);
    expect(await outboxOf(t, 'rolled@example.com')).toEqual([]);
  });

  it('retries a refused mail after the schedule’s delay, not before', async () => {
    mailbox.refuseNext = 2;
    await queueReset(t, 'busy@example.com');
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to('busy@example.com')).toHaveLength(0);
    const [first] = await outboxOf(t, 'busy@example.com');
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_error: expect.stringContaining('451') });

    t.clock.advance(MAIL_RETRY_SCHEDULE_MS[0] - 1000);
    await mailDeliveryJob.run(t.services);
    expect((await outboxOf(t, 'busy@example.com'))[0]!.attempts).toBe(1);

    t.clock.advance(1000);
    await mailDeliveryJob.run(t.services);
    expect((await outboxOf(t, 'busy@example.com'))[0]).toMatchObject({ status: 'pending', attempts: 2 });

    t.clock.advance(MAIL_RETRY_SCHEDULE_MS[1]);
    await mailDeliveryJob.run(t.services);
    expect(mailbox.to('busy@example.com')).toHaveLength(1);
    expect((await outboxOf(t, 'busy@example.com'))[0]).toMatchObject({ status: 'sent', attempts: 3 });
  });

  it('gives a mail up after the last retry', async () => {
    mailbox.refuseNext = MAIL_RETRY_SCHEDULE_MS.length + 1;
    await queueReset(t, 'never@example.com');
    for (const delay of [0, ...MAIL_RETRY_SCHEDULE_MS]) {
      t.clock.advance(delay);
      await mailDeliveryJob.run(t.services);
    }
    expect(await outboxOf(t, 'never@example.com')).toEqual([
      { status: 'failed', attempts: MAIL_RETRY_SCHEDULE_MS.length + 1, body: '', last_error: expect.stringContaining('451') },
    ]);
    expect(mailbox.to('never@example.com')).toHaveLength(0);
    mailbox.refuseNext = 0;
  });
});

describe('mail through SMTP_URL with a wrong password', () => {
  const mailbox = useMailbox();
  const t = useApp(() => ({ env: { SMTP_URL: mailbox.url.replace(`:${encodeURIComponent(SMTP_PASSWORD)}@`, ':wrong@') } }));

  it('is refused by the server and tried again later', async () => {
    await queueReset(t, 'auth@example.com');
    await mailDeliveryJob.run(t.services);
    expect(mailbox.received).toEqual([]);
    expect((await outboxOf(t, 'auth@example.com'))[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: expect.stringContaining('Invalid'),
    });
  });
});

describe('mail without SMTP_URL', () => {
  const lines: Record<string, unknown>[] = [];
  const t = useApp({ log: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) });

  it('writes the mail’s subject and link to the log, and nothing of its body', async () => {
    await queueReset(t, 'dev@example.com');
    await mailDeliveryJob.run(t.services);
    const logged = lines.filter((line) => line.msg === 'mail not sent: SMTP_URL is not set');
    expect(logged).toEqual([
      expect.objectContaining({
        mail: { to: 'dev@example.com', template: 'password-reset', subject: 'Reset your tagsvc password', links: [LINK] },
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('ignore this mail');
    expect((await outboxOf(t, 'dev@example.com'))[0]!.status).toBe('sent');
  });
});

describe('SMTP_URL and MAIL_FROM', () => {
  const base = { DATA_DIR: '/tmp/tagsvc-mail-config', SECRET_KEY: 'x'.repeat(32) };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
    } catch (error) {
      return error instanceof ConfigError ? error.message : error;
    }
    return undefined;
  };

  it('takes smtp:// and smtps:// URLs with credentials, and names the variable otherwise', () => {
    expect(loadConfig({ ...base, SMTP_URL: 'smtps://u:p@mail.example.com:465' }).smtpUrl).toBe('smtps://u:p@mail.example.com:465');
    expect(refusal({ SMTP_URL: 'http://mail.example.com' })).toBe('Invalid SMTP_URL: must be an smtp:// or smtps:// URL');
    expect(refusal({ SMTP_URL: 'mail.example.com' })).toMatch(/^Invalid SMTP_URL: not a URL/);
    expect(refusal({ SMTP_URL: 'smtp://mail.example.com/inbox' })).toBe('Invalid SMTP_URL: must not contain a path or fragment');
  });

  it('defaults MAIL_FROM to no-reply at the public host, and refuses one that is not an address', () => {
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://tags.example.com' }).mailFrom).toBe('tagsvc <no-reply@tags.example.com>');
    expect(loadConfig({ ...base, MAIL_FROM: 'Tags <t@example.com>' }).mailFrom).toBe('Tags <t@example.com>');
    expect(refusal({ MAIL_FROM: 'nobody' })).toMatch(/^Invalid MAIL_FROM: expected an address/);
  });
});
