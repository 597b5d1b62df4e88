import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/infra/config.ts';
import { Mailer } from '../../src/infra/mail/mailer.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// The mail component against a real SMTP server (smtp-server, in-process) and, without SMTP_URL,
// the outbox folder the sandbox uses.
describe('email through SMTP', () => {
  let smtp: TestSmtpServer;
  let t: TestService;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({}, { SMTP_URL: smtp.url, MAIL_FROM: 'Brand Health <alerts@example.test>' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('delivers text and HTML with attachments to every recipient, authenticated', async () => {
    const sent = await t.ctx.mail.send({
      to: ['ana@example.test', 'ben@example.test'],
      subject: 'Weekly report',
      text: 'Score 61.2 (strong)',
      html: '<p>Score <b>61.2</b> (strong)</p>',
      attachments: [
        { filename: 'report.csv', content: 'day,score\n2026-11-27,61.2\n', contentType: 'text/csv' },
      ],
    });
    expect(sent.via).toBe('smtp');
    const mail = await smtp.waitFor((m) => m.parsed.subject === 'Weekly report');
    expect(mail.envelope.to.sort()).toEqual(['ana@example.test', 'ben@example.test']);
    expect(mail.envelope.from).toBe('alerts@example.test');
    expect(mail.parsed.text?.trim()).toBe('Score 61.2 (strong)');
    expect(mail.parsed.html).toContain('<b>61.2</b>');
    expect(mail.parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ['report.csv', 'day,score\n2026-11-27,61.2\n'],
    ]);
  });

  it('puts a white-label display name on the configured address', async () => {
    await t.ctx.mail.send({ to: ['c@example.test'], subject: 'Branded', text: 'x', fromName: 'Acme Agency' });
    const mail = await smtp.waitFor((m) => m.parsed.subject === 'Branded');
    expect(mail.parsed.from?.value).toEqual([{ name: 'Acme Agency', address: 'alerts@example.test' }]);
  });

  it('fails loudly when the server refuses the credentials', async () => {
    const wrong = smtp.url.replace('mail-secret', 'wrong');
    const mailer = new Mailer({ ...t.ctx.config.mail, smtpUrl: wrong }, () => new Date());
    try {
      await expect(mailer.send({ to: ['x@example.test'], subject: 's', text: 't' })).rejects.toThrow(
        /auth|credentials/i,
      );
    } finally {
      mailer.close();
    }
  });
});

describe('email without SMTP_URL', () => {
  it('is written to the outbox folder as an .eml file', async () => {
    const outbox = await fs.mkdtemp(path.join(os.tmpdir(), 'bh-outbox-test-'));
    const t = await startTestService({}, { MAIL_OUTBOX_DIR: outbox });
    try {
      const sent = await t.ctx.mail.send({
        to: ['ana@example.test'],
        subject: 'Verify your email',
        text: 'Code 123',
      });
      expect(sent.via).toBe('outbox');
      expect(path.dirname(sent.file!)).toBe(outbox);
      const parsed = await simpleParser(await fs.readFile(sent.file!));
      expect(parsed.subject).toBe('Verify your email');
      expect(parsed.text?.trim()).toBe('Code 123');
      expect((await fs.stat(sent.file!)).mode & 0o777).toBe(0o600);
    } finally {
      await t.close();
      await fs.rm(outbox, { recursive: true, force: true });
    }
  });
});

describe('mail configuration', () => {
  it.each([
    [{ SMTP_URL: 'http://mail.example.test' }, /SMTP_URL must use smtp: or smtps:/],
    [{ SMTP_URL: 'not a url' }, /SMTP_URL is not a valid URL/],
    [{ MAIL_FROM: 'nobody' }, /MAIL_FROM must be/],
    [{ MAIL_FROM: 'A <a@b.test>\r\nBcc: x@y.test' }, /MAIL_FROM must be/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
