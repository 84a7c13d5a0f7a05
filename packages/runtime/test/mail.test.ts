import { startSmtpServer, type TestSmtpServer } from '@tlm/testkit';
import { MailNotConfigured, mailerFromConfig } from '@tlm/runtime';

/** The mailer against a real SMTP server on loopback: the mail arrives whole, and without SMTP_URL nothing is sent. */
describe('mailer', () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp.close());

  it('delivers a mail with its sender, subject and a long link intact', async () => {
    const mailer = mailerFromConfig({ SMTP_URL: smtp.url, MAIL_FROM: 'Telemetry <alerts@example.com>' });
    const link = `http://127.0.0.1:8080/invitations/${'a'.repeat(120)}`;
    const sent = await mailer.send({ to: 'Ada@Example.com', subject: 'You are invited', text: `Open ${link} to join.` });
    mailer.close();
    expect(sent.response).toMatch(/^250/);
    const mail = await smtp.waitForMail('ada@example.com');
    expect(mail.from).toBe('alerts@example.com');
    expect(mail.subject).toBe('You are invited');
    expect(mail.text).toContain(link);
  });

  it('refuses to send without SMTP_URL', async () => {
    const mailer = mailerFromConfig({ MAIL_FROM: 'Telemetry <alerts@example.com>' });
    expect(mailer.configured).toBe(false);
    await expect(mailer.send({ to: 'ada@example.com', subject: 'x', text: 'y' })).rejects.toBeInstanceOf(MailNotConfigured);
  });
});
