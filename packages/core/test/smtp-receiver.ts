import type { AddressInfo } from 'node:net';
import type { ParsedMail } from 'mailparser';

export interface ReceivedMail {
  /** MAIL FROM and RCPT TO of the SMTP session. */
  envelope: { from: string; to: string[] };
  /** The message as a mail client would read it: parts, headers, addresses. */
  parsed: ParsedMail;
  raw: string;
}

/** A real SMTP server on a local port, as a mail relay for email channels in tests. */
export interface SmtpReceiver {
  /** smtp://user:pass@127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  /** The next messages are refused with this SMTP reply (e.g. 550 or 451), one each. */
  refuseNext(...replies: { code: number; message: string }[]): void;
  close(): Promise<void>;
}

export const SMTP_USER = 'notifier';
export const SMTP_PASSWORD = 'smtp-test-password';

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  // Loaded here, not at the top: most test files import the testing helpers and never send mail.
  const [{ simpleParser }, { SMTPServer }] = await Promise.all([import('mailparser'), import('smtp-server')]);
  const mails: ReceivedMail[] = [];
  let refusals: { code: number; message: string }[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: no certificate to trust, and AUTH allowed without TLS.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const refusal = refusals.shift();
        if (refusal) return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            const from = session.envelope.mailFrom;
            mails.push({ envelope: { from: from ? from.address : '', to: session.envelope.rcptTo.map((r) => r.address) }, parsed, raw });
            callback();
          })
          .catch(callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    mails,
    refuseNext(...replies) {
      refusals = replies;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
