import nodemailer, { type Transporter } from 'nodemailer';
import type { ServiceContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { failureReason } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { inClear, keyring, seal, type Keyring } from '../../lib/sealed-secrets.js';
import * as repo from './mail.repository.js';
import { renderMail, type RenderedMail, type TemplateData, type TemplateName } from './templates.js';

/**
 * Mail goes through a durable outbox: a feature queues it in the transaction of the change that
 * causes it (queueMail), so a mail is sent exactly when its change commits, and never from the
 * request; the worker's `mail-delivery` job sends it with nodemailer (SMTP_URL) and retries on
 * the schedule below. Without SMTP_URL the job writes each mail's subject and links to the log
 * instead (the development fallback), and the screens that send mail say so.
 */

/** Delays after each failed attempt; after the last, the mail is given up (about 16 hours in all). */
export const MAIL_RETRY_SCHEDULE_MS = [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000] as const;
/**
 * How long a claimed mail is left to its worker before another may try it: longer than one
 * sending can take (SMTP_TIMEOUT_MS for each of connecting, the greeting and a silent socket).
 */
const LEASE_MS = 120_000;
/** Sent and failed mails are kept this long (their subject, status and error; the body is gone). */
const KEPT_MS = 30 * 24 * 60 * 60 * 1000;
/** A mail server that takes longer to answer is tried again later. */
const SMTP_TIMEOUT_MS = 30_000;

const keyrings = new WeakMap<ServiceContext['config'], Keyring>();
function mailKeys(config: ServiceContext['config']): Keyring {
  let keys = keyrings.get(config);
  if (!keys) keyrings.set(config, (keys = keyring('mail bodies', config.secretKey, config.previousSecretKeys)));
  return keys;
}

/** Whether mail really goes out (SMTP_URL is set), or only to the server's log. */
export function isMailConfigured(ctx: Pick<ServiceContext, 'config'>): boolean {
  return ctx.config.smtpUrl !== undefined;
}

export interface MailInput<T extends TemplateName> {
  to: string;
  template: T;
  data: TemplateData[T];
}

/** Queues a mail in `trx`, the transaction of the change it tells about: it is sent once that commits. */
export async function queueMail<T extends TemplateName>(trx: Db, ctx: Pick<ServiceContext, 'config' | 'clock'>, mail: MailInput<T>) {
  const rendered = renderMail(mail.template, mail.data);
  const now = ctx.clock.now().toISOString();
  const body = JSON.stringify({ text: rendered.text, html: rendered.html, links: rendered.links });
  await repo.insertMail(trx, {
    id: newId('mail'),
    recipient: mail.to,
    template: mail.template,
    subject: rendered.subject,
    body: seal(mailKeys(ctx.config), body),
    status: 'pending',
    next_attempt_at: now,
    created_at: now,
  });
}

const transports = new WeakMap<ServiceContext['config'], Transporter>();
function transportOf(config: ServiceContext['config'], smtpUrl: string): Transporter {
  let transport = transports.get(config);
  if (!transport) {
    transport = nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    });
    transports.set(config, transport);
  }
  return transport;
}

async function send(ctx: ServiceContext, recipient: string, subject: string, mail: Omit<RenderedMail, 'subject'>, template: string) {
  const { config, log } = ctx;
  if (config.smtpUrl === undefined) {
    // The development fallback: the operator reads the one link the reader needs here.
    log.info({ mail: { to: recipient, template, subject, links: mail.links } }, 'mail not sent: SMTP_URL is not set');
    return;
  }
  await transportOf(config, config.smtpUrl).sendMail({ from: config.mailFrom, to: recipient, subject, text: mail.text, html: mail.html });
}

/**
 * The worker's turn: sends every due mail. Each is claimed just before it is sent, so its lease
 * covers its own sending only: claimed in batches, a slow server could keep the last of a batch
 * waiting past its lease, and another worker would send it too.
 * A failure is retried after the next delay of MAIL_RETRY_SCHEDULE_MS; the last one gives up.
 * Returns how many were sent.
 */
export async function deliverDueMail(ctx: ServiceContext): Promise<number> {
  const { db, clock, log } = ctx;
  let sent = 0;
  for (;;) {
    const nowMs = clock.now().getTime();
    const mail = await repo.claimNextMail(db, new Date(nowMs).toISOString(), new Date(nowMs + LEASE_MS).toISOString());
    if (!mail) return sent;
    try {
      const body = JSON.parse(inClear(mailKeys(ctx.config), mail.body)) as Omit<RenderedMail, 'subject'>;
      await send(ctx, mail.recipient, mail.subject, body, mail.template);
      await repo.markSent(db, mail.id, clock.now().toISOString());
      sent++;
    } catch (error) {
      const reason = failureReason(error);
      const delay = MAIL_RETRY_SCHEDULE_MS[mail.attempts - 1];
      if (delay === undefined) {
        await repo.markFailed(db, mail.id, reason);
        log.error({ mailId: mail.id, template: mail.template, attempts: mail.attempts, reason }, 'mail given up');
      } else {
        await repo.markRetry(db, mail.id, new Date(clock.now().getTime() + delay).toISOString(), reason);
        log.warn({ mailId: mail.id, template: mail.template, attempts: mail.attempts, reason }, 'mail not sent, will retry');
      }
    }
  }
}

/** Deletes the rows of mails sent or given up more than 30 days ago (the mail-retention job); returns how many. */
export function purgeFinishedMail(ctx: ServiceContext): Promise<number> {
  return repo.purgeFinished(ctx.db, new Date(ctx.clock.now().getTime() - KEPT_MS).toISOString());
}
