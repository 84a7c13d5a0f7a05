import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface TestSmtpServer {
  /** SMTP_URL for the server under test: plain SMTP on loopback, no authentication. */
  url: string;
  /** Every mail received, in order of arrival. */
  mails: ReceivedMail[];
  /** The first mail received (now or later) that is addressed to `to` and passes `matches`; rejects after `timeoutMs`. */
  waitForMail(to: string, matches?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on a free loopback port that keeps every mail it is given, parsed (mailparser). */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  const listeners = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
          });
          for (const listener of listeners) listener();
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail(to, matches = () => true, timeoutMs = 10_000) {
      const wanted = (mail: ReceivedMail) => mail.to.includes(to.toLowerCase()) && matches(mail);
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = mails.find(wanted);
          if (!found) return false;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(found);
          return true;
        };
        const listener = () => void check();
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms; received: ${mails.map((mail) => `${mail.to.join(',')} "${mail.subject}"`).join('; ') || 'none'}`));
        }, timeoutMs);
        listeners.add(listener);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
