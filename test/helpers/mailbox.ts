import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';

export const SMTP_USER = 'tagsvc';
export const SMTP_PASSWORD = 'mail secret';

/** A received mail: its envelope and the parsed message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  message: ParsedMail;
}

/**
 * A real SMTP server on 127.0.0.1 and a random port (smtp-server), that takes mail from the one
 * user SMTP_USER/SMTP_PASSWORD and keeps every message it accepted, parsed (mailparser).
 * `refuseNext` makes it answer the next messages with a temporary failure (451).
 */
export class Mailbox {
  readonly received: ReceivedMail[] = [];
  refuseNext = 0;
  url = '';
  private server!: SMTPServer;

  static async start(): Promise<Mailbox> {
    const mailbox = new Mailbox();
    mailbox.server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        if (mailbox.refuseNext > 0) {
          mailbox.refuseNext--;
          stream.resume();
          stream.on('end', () => callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 })));
          return;
        }
        simpleParser(stream).then(
          (message) => {
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
            mailbox.received.push({ from, to: session.envelope.rcptTo.map((rcpt) => rcpt.address), message });
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve) => mailbox.server.listen(0, '127.0.0.1', resolve));
    const address = mailbox.server.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    mailbox.url = `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}`;
    return mailbox;
  }

  /** The mails sent to `address`, oldest first. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.includes(address));
  }

  /** The one link to `path` in the last mail to `address`'s text; both bodies carry the same. */
  linkTo(address: string, path: string): URL {
    const mail = this.to(address).at(-1);
    if (!mail) throw new Error(`no mail to ${address}`);
    const links = (mail.message.text ?? '').match(/https?:\/\/\S+/g) ?? [];
    const found = links.map((link) => new URL(link)).filter((url) => url.pathname === path);
    if (found.length !== 1) throw new Error(`expected one link to ${path} in ${mail.message.text}`);
    return found[0]!;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A mailbox started before the suite's app (declare it first) and closed after the suite. */
export function useMailbox(): Mailbox {
  const handle = {} as { current?: Mailbox };
  beforeAll(async () => {
    handle.current = await Mailbox.start();
  });
  afterAll(() => handle.current?.close());
  return new Proxy({} as Mailbox, {
    get(_target, property) {
      if (!handle.current) throw new Error('the mailbox runs from beforeAll to afterAll');
      const value = Reflect.get(handle.current, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(handle.current) : value;
    },
    set(_target, property, value) {
      if (!handle.current) throw new Error('the mailbox runs from beforeAll to afterAll');
      return Reflect.set(handle.current, property, value);
    },
  });
}
