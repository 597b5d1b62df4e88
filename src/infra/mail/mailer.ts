import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.ts';

/** One email: text always, HTML when the sender has it (both go as multipart/alternative). */
export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html?: string;
  /**
   * The display name in From (a white-labelled agency's name); the address stays MAIL_FROM's, so
   * the message still passes the sending domain's SPF and DKIM.
   */
  fromName?: string;
  replyTo?: string;
  attachments?: { filename: string; content: Buffer | string; contentType: string }[];
}

export interface SentMail {
  messageId: string;
  /** `smtp`: accepted by the SMTP server; `outbox`: written to MAIL_OUTBOX_DIR (no SMTP_URL). */
  via: 'smtp' | 'outbox';
  /** The .eml file, for `outbox`. */
  file: string | null;
}

/**
 * The service's one way to send email (nodemailer for the message format and the SMTP client).
 * Without SMTP_URL every message is written to the outbox folder as an .eml file and reported
 * through `onOutbox` (the service logs it), so a sandbox without a mail server works offline and
 * its messages can still be opened.
 */
export class Mailer {
  readonly #config: MailConfig;
  readonly #transport: Transporter;
  /** Called for each message written to the outbox. */
  onOutbox: (sent: SentMail, message: MailMessage) => void = () => {};

  readonly #now: () => Date;

  constructor(config: MailConfig, now: () => Date) {
    this.#config = config;
    this.#now = now;
    this.#transport = config.smtpUrl
      ? nodemailer.createTransport(config.smtpUrl)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  /** Where messages go: the SMTP server's host, or the outbox folder. */
  get destination(): string {
    return this.#config.smtpUrl ? new URL(this.#config.smtpUrl).host : this.#config.outboxDir;
  }

  async send(message: MailMessage): Promise<SentMail> {
    if (message.to.length === 0) throw new Error('an email needs at least one recipient');
    const info = await this.#transport.sendMail({
      from: this.#from(message.fromName),
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html === undefined ? {} : { html: message.html }),
      ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
      attachments: message.attachments ?? [],
    });
    if (this.#config.smtpUrl) return { messageId: info.messageId, via: 'smtp', file: null };
    await fs.mkdir(this.#config.outboxDir, { recursive: true, mode: 0o700 });
    const file = path.join(
      this.#config.outboxDir,
      `${this.#now().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`,
    );
    await fs.writeFile(file, info.message as Buffer, { mode: 0o600 });
    const sent: SentMail = { messageId: info.messageId, via: 'outbox', file };
    this.onOutbox(sent, message);
    return sent;
  }

  close(): void {
    this.#transport.close();
  }

  #from(name: string | undefined): string | { name: string; address: string } {
    if (name === undefined) return this.#config.from;
    const address = /<([^<>]+)>$/.exec(this.#config.from)?.[1] ?? this.#config.from;
    return { name, address };
  }
}
