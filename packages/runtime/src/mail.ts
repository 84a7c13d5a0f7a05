import { Type } from '@sinclair/typebox';
import nodemailer, { type Transporter } from 'nodemailer';

/** Settings of outgoing mail: invitations, password resets and alert notifications. */
export const mailConfig = {
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      secret: true,
      description:
        'SMTP server that sends mail, as smtp://user:password@host:587 (STARTTLS when offered) or smtps://…:465 (TLS). Without it, invitations and password resets cannot be mailed and e-mail alert channels are refused.',
    }),
  ),
  MAIL_FROM: Type.String({ default: 'Telemetry <no-reply@localhost>', minLength: 3, description: 'The From address of every mail the server sends.' }),
  PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'The address people open the web app at (https://telemetry.example.com), used for links in mails and alert messages; default the address of the request that caused the mail.',
    }),
  ),
};

export interface MailSettings {
  SMTP_URL?: string;
  MAIL_FROM: string;
}

export interface Mail {
  to: string;
  subject: string;
  /** The plain text body; every mail has one. */
  text: string;
  html?: string;
}

export interface SentMail {
  messageId: string;
  /** The SMTP server's final answer, e.g. "250 Accepted". */
  response: string;
}

/** Thrown by `send` on a server without SMTP_URL: the caller answers that mail is not set up. */
export class MailNotConfigured extends Error {
  constructor() {
    super('mail is not configured on this server (SMTP_URL)');
  }
}

export interface Mailer {
  /** Whether SMTP_URL is set, so mail can be sent at all. */
  readonly configured: boolean;
  send(mail: Mail): Promise<SentMail>;
  close(): void;
}

/** Sends through the SMTP server of SMTP_URL with a pooled connection (nodemailer). */
export function mailerFromConfig(config: MailSettings): Mailer {
  if (!config.SMTP_URL) {
    return {
      configured: false,
      send: () => Promise.reject(new MailNotConfigured()),
      close: () => undefined,
    };
  }
  const transport: Transporter = nodemailer.createTransport(config.SMTP_URL, { from: config.MAIL_FROM });
  return {
    configured: true,
    async send(mail) {
      const info = await transport.sendMail({ from: config.MAIL_FROM, ...mail });
      return { messageId: String(info.messageId), response: String(info.response) };
    },
    close: () => transport.close(),
  };
}
