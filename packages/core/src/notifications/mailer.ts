import nodemailer from 'nodemailer';
import type { SendResult } from './delivery-policy.js';

export interface EmailMessage {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** A Message-ID of the delivery's own: the same on every attempt, so mail clients can drop a repeat. */
  messageId: string;
}

export interface Mailer {
  send(message: EmailMessage): Promise<SendResult>;
  close(): void;
}

/** SMTP errors carry the server's reply code; connection problems carry a code such as ECONNECTION. */
function fromSmtpError(error: unknown): SendResult {
  const e = error as { responseCode?: number; code?: string; message?: string; response?: string };
  const reason = (e.response ?? e.message ?? String(error)).replace(/\s+/g, ' ').trim();
  if (typeof e.responseCode === 'number') return { statusCode: e.responseCode, error: `SMTP server answered ${reason}`, retryAfterMs: null };
  return { statusCode: null, error: `${e.code ?? 'SMTP_ERROR'}: ${reason}`, retryAfterMs: null };
}

/**
 * Sends through the SMTP server of SMTP_URL with nodemailer. `pool` keeps a few connections open
 * (the notifier); without it each message opens its own (a channel test from the API).
 */
export function createMailer(options: { smtpUrl: string; from: string; timeoutMs: number; pool: boolean }): Mailer {
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    pool: options.pool,
    maxConnections: 5,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  return {
    async send(message) {
      let timer: NodeJS.Timeout | undefined;
      // nodemailer's timeouts bound each phase; this bounds the whole exchange, like an HTTP send.
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'TIMEOUT' })), options.timeoutMs);
      });
      try {
        const sending = transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          html: message.html,
          text: message.text,
          messageId: message.messageId,
        });
        sending.catch(() => undefined);
        const info = await Promise.race([sending, timeout]);
        const code = Number(/^(\d{3})/.exec(info.response ?? '')?.[1] ?? 250);
        return { statusCode: code, error: null, retryAfterMs: null };
      } catch (error) {
        return fromSmtpError(error);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      transport.close();
    },
  };
}
