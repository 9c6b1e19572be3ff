import Joi from 'joi';
import { formatTime, summarizeMessage, type MessageSummary } from '../summarize-message.js';
import type { ChannelAdapter } from './adapter.js';
import { escapeHtml, truncate } from './escape.js';
import { toneHex } from './tone.js';

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

const FONT = `-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif`;
const MUTED = '#57606a';
const BORDER = '#d0d7de';

function htmlRows(s: MessageSummary): string {
  return s.fields
    .map(
      (f) =>
        `<tr><th align="left" valign="top" style="padding:8px 16px 8px 0;color:${MUTED};font-weight:500;white-space:nowrap;border-bottom:1px solid #eaeef2;">${escapeHtml(f.label)}</th>` +
        `<td style="padding:8px 0;border-bottom:1px solid #eaeef2;word-break:break-word;">${escapeHtml(truncate(f.value, 2000))}</td></tr>`,
    )
    .join('\n');
}

function htmlButtons(s: MessageSummary): string {
  if (s.links.length === 0) return '';
  const buttons = s.links
    .map((l) => `<a href="${escapeHtml(l.url)}" style="display:inline-block;margin:0 8px 8px 0;padding:10px 18px;background:#0969da;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600;">${escapeHtml(l.label)}</a>`)
    .join('');
  return `<tr><td style="padding:8px 24px 16px;">${buttons}</td></tr>`;
}

/** A self-contained HTML message: inline styles and tables only, which mail clients render alike. */
function html(s: MessageSummary): string {
  const colour = toneHex(s.tone);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(s.title)}</title></head>
<body style="margin:0;padding:0;background:#f6f8fa;font-family:${FONT};color:#1f2328;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f6f8fa;padding:24px 12px;"><tr><td align="center">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="width:100%;max-width:600px;background:#ffffff;border:1px solid ${BORDER};border-radius:8px;border-collapse:separate;overflow:hidden;">
<tr><td style="background:${colour};color:#ffffff;padding:20px 24px;">
<div style="font-size:12px;letter-spacing:0.08em;text-transform:uppercase;opacity:0.9;">${escapeHtml(s.eventName)}</div>
<div style="font-size:20px;font-weight:600;margin-top:6px;line-height:1.3;">${escapeHtml(s.title)}</div>
</td></tr>
<tr><td style="padding:16px 24px 8px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px;line-height:1.5;">
${htmlRows(s)}
</table>
</td></tr>
${htmlButtons(s)}
<tr><td style="padding:12px 24px;border-top:1px solid ${BORDER};color:${MUTED};font-size:12px;">Sent by cron-service at ${escapeHtml(formatTime(s.timestamp))}.</td></tr>
</table>
</td></tr></table>
</body></html>
`;
}

function text(s: MessageSummary): string {
  const width = Math.max(...s.fields.map((f) => f.label.length)) + 2;
  const lines = [s.title, `(${s.eventName})`, ''];
  for (const f of s.fields) lines.push(`${`${f.label}:`.padEnd(width)}${truncate(f.value, 2000)}`);
  if (s.links.length > 0) lines.push('', ...s.links.map((l) => `${l.label}: ${l.url}`));
  lines.push('', `Sent by cron-service at ${formatTime(s.timestamp)}.`);
  return `${lines.join('\n')}\n`;
}

/** Subjects are one line: a job name with a line break must not start a header of its own. */
const oneLine = (value: string) => value.replace(/[\r\n\t]+/g, ' ');

/** A styled HTML message with a status-coloured header and a summary table, plus a plain-text part, through SMTP_URL. */
export const emailAdapter: ChannelAdapter<RenderedEmail> = {
  type: 'email',
  configSchema: Joi.object({ email: Joi.string().email({ tlds: false }).max(254).required() }),
  credentialFields: [],
  urlFields: [],
  destinationFields: ['email'],
  render(message) {
    const s = summarizeMessage(message);
    return { subject: truncate(oneLine(`[cron-service] ${s.title}`), 200), html: html(s), text: text(s) };
  },
  send(email, config, context) {
    if (!context.mailer) return Promise.resolve({ statusCode: null, error: 'email is not configured: set SMTP_URL', retryAfterMs: null, unrecoverable: true });
    return context.mailer.send({ ...email, to: config.email as string, messageId: `<${context.messageId}@cron-service>` });
  },
  classify(result) {
    if (result.error === null) return 'sent';
    if (result.unrecoverable || (result.statusCode !== null && result.statusCode >= 500)) return 'permanent';
    return 'transient';
  },
};
