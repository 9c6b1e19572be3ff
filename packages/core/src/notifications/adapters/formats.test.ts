import { createHmac } from 'node:crypto';
import { executionEvent } from '../execution-event.js';
import type { NotificationMessage } from '../notification-message.js';
import { chatAAdapter } from './chat-a.js';
import { chatBAdapter } from './chat-b.js';
import { chatCAdapter } from './chat-c.js';
import { emailAdapter } from './email.js';
import { escapeDiscord, escapeHtml, escapeSlack } from './escape.js';
import { CHANNEL_TYPES } from '@cronsvc/contracts';
import { CHANNEL_ADAPTERS } from './index.js';
import { webhookAdapter, webhookSignature } from './webhook.js';

// A job name and a response body that try every trick of every format.
const HOSTILE = '<b>x</b> *bold* _it_ `code` [link](https://evil.example) @everyone <!channel> & "q"\nSubject: forged';
const BODY = 'line 1\n```\n</pre><script>alert(1)</script> <@&123>';

function message(status: 'succeeded' | 'failed', event: NotificationMessage['event'] = status === 'failed' ? 'on_failure' : 'on_success'): NotificationMessage {
  return {
    event,
    payload: executionEvent({
      status,
      job: { id: 'job_1', name: HOSTILE },
      executionId: 'exe_1',
      statusCode: status === 'failed' ? 503 : 200,
      bodyPreview: BODY,
      errorClass: status === 'failed' ? 'HTTP_5XX' : null,
      output: null,
      at: new Date('2030-01-02T03:04:05.678Z'),
    }),
    context: {
      scheduled_for: '2030-01-02T03:04:00.000Z',
      started_at: '2030-01-02T03:04:01.000Z',
      finished_at: '2030-01-02T03:04:05.678Z',
      duration_ms: 4678,
      attempts: 3,
      error_message: status === 'failed' ? 'status 503 is not a success status' : null,
      execution_url: 'https://cron.example.com/v1/executions/exe_1',
    },
  };
}

describe('the adapters map', () => {
  it('has one adapter per channel type, each registered under its own type', () => {
    expect(Object.keys(CHANNEL_ADAPTERS).sort()).toEqual([...CHANNEL_TYPES].sort());
    for (const type of CHANNEL_TYPES) expect(CHANNEL_ADAPTERS[type].type).toBe(type);
  });
});

describe('webhook', () => {
  it('sends the payload exactly, and signs the raw body with HMAC-SHA256 as sha256=<hex>', () => {
    const m = message('failed');
    const body = webhookAdapter.render(m, { url: 'https://x' });
    expect(JSON.parse(body)).toEqual(m.payload);
    expect(webhookSignature('s3cret', body)).toBe(`sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`);
  });

  it('fails at once on its permanent statuses and retries timeouts, 408, 429 and 5xx', () => {
    const r = (statusCode: number | null, unrecoverable = false) => webhookAdapter.classify({ statusCode, error: 'x', retryAfterMs: null, unrecoverable });
    expect([400, 401, 403, 404, 410, 413, 422].map((s) => r(s))).toEqual(Array(7).fill('permanent'));
    expect([408, 429, 500, 502, 503, 504, null].map((s) => r(s))).toEqual(Array(7).fill('transient'));
    expect(r(null, true)).toBe('permanent');
    expect(r(204)).toBe('sent');
  });
});

describe('chat_a', () => {
  it('sends a plaintext fallback and blocks showing event, status and timestamp, user text unformatted', () => {
    const out = chatAAdapter.render(message('failed'), { webhook_url: 'https://x', include_output: false });
    expect(out.text).toBe(`🔴 ${escapeSlack(`Job "${HOSTILE}" failed`)}`);
    expect(out.text).not.toMatch(/<!channel>|<b>/);
    const header = out.blocks.find((b) => b.type === 'header') as { text: { type: string; text: string } };
    expect(header.text).toMatchObject({ type: 'plain_text', text: expect.stringContaining('<!channel>') });
    const fields = (out.blocks.find((b) => b.type === 'section') as { fields: { type: string; text: string }[] }).fields;
    expect(fields.every((f) => f.type === 'plain_text')).toBe(true);
    expect(fields.map((f) => f.text)).toEqual(expect.arrayContaining(['Status: failed (HTTP 503)', 'Attempts: 3', 'Error: HTTP_5XX']));
    expect(JSON.stringify(out.blocks)).toContain('execution.failed · 2030-01-02T03:04:05.678Z');
    expect(JSON.stringify(out.blocks)).not.toContain('</pre>');
  });

  it('puts mention_text first as written, and the body preview only with include_output', () => {
    const out = chatAAdapter.render(message('succeeded'), { webhook_url: 'https://x', mention_text: '<!here>', include_output: true });
    expect(out.text.startsWith('<!here> ✅')).toBe(true);
    expect(out.blocks[0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: '<!here>' } });
    const preformatted = out.blocks.find((b) => b.type === 'rich_text');
    expect(JSON.stringify(preformatted)).toContain(JSON.stringify(BODY).slice(1, -1));
    expect(chatAAdapter.render(message('succeeded'), { webhook_url: 'https://x', include_output: false }).blocks.some((b) => b.type === 'rich_text')).toBe(false);
  });
});

describe('chat_b', () => {
  it('sends one embed, green for success and red for failure, Markdown-escaped', () => {
    const ok = chatBAdapter.render(message('succeeded'), { webhook_url: 'https://x', include_output: false });
    const failed = chatBAdapter.render(message('failed'), { webhook_url: 'https://x', include_output: false });
    expect(ok.embeds[0].color).toBe(0x2da44e);
    expect(failed.embeds[0].color).toBe(0xcf222e);
    const embed = failed.embeds[0];
    expect(embed.title).toBe(escapeDiscord(`Job "${HOSTILE}" failed`));
    expect(embed.title).not.toMatch(/(^|[^\\])\*bold/);
    expect(embed.timestamp).toBe('2030-01-02T03:04:05.678Z');
    expect(embed.fields).toEqual(expect.arrayContaining([{ name: 'Status', value: 'failed \\(HTTP 503\\)', inline: true }]));
    expect(embed.description).toContain('[View execution](https://cron.example.com/v1/executions/exe_1)');
    expect(failed.allowed_mentions).toEqual({ parse: [], roles: [] });
    expect(failed.content).toBeUndefined();
  });

  it('mentions only the configured roles, and keeps the body preview inside its code block', () => {
    const out = chatBAdapter.render(message('failed'), { webhook_url: 'https://x', mention_role_ids: ['111', '222'], include_output: true });
    expect(out.content).toBe('<@&111> <@&222>');
    expect(out.allowed_mentions).toEqual({ parse: [], roles: ['111', '222'] });
    const description = out.embeds[0].description;
    const block = description.slice(description.indexOf('```\n'));
    expect(block.match(/```/g)).toHaveLength(2);
  });
});

describe('chat_c', () => {
  it('sends HTML with every user text escaped, and the configured options', () => {
    const out = chatCAdapter.render(message('failed'), { bot_token: '1:a', chat_id: '-100123', message_thread_id: 7, disable_web_page_preview: true, include_output: true });
    expect(out).toMatchObject({ chat_id: '-100123', parse_mode: 'HTML', disable_web_page_preview: true, message_thread_id: 7 });
    expect(out.text).toContain(escapeHtml(`Job "${HOSTILE}" failed`));
    expect(out.text).not.toContain('<script>');
    expect(out.text).toContain(`<pre>${escapeHtml(BODY)}</pre>`);
    expect(out.text).toContain('<a href="https://cron.example.com/v1/executions/exe_1">View execution</a>');
    const plain = chatCAdapter.render(message('succeeded'), { bot_token: '1:a', chat_id: '5', disable_web_page_preview: false, include_output: false });
    expect(plain.disable_web_page_preview).toBe(false);
    expect(plain).not.toHaveProperty('message_thread_id');
    expect(plain.text).not.toContain('<pre>');
  });

  it('fails at once only on 400, 401, 403 and 404', () => {
    const r = (statusCode: number) => chatCAdapter.classify({ statusCode, error: 'x', retryAfterMs: null });
    expect([400, 401, 403, 404].map(r)).toEqual(Array(4).fill('permanent'));
    expect([410, 413, 422, 429, 500].map(r)).toEqual(Array(5).fill('transient'));
  });
});

describe('email', () => {
  it('renders a one-line subject, escaped HTML with a status-coloured header, and a text part', () => {
    const out = emailAdapter.render(message('failed'), { email: 'ops@example.com' });
    expect(out.subject).not.toMatch(/[\r\n]/);
    expect(out.subject).toContain('[cron-service] Job "<b>x</b>');
    expect(out.html).toContain('background:#cf222e');
    expect(out.html).not.toContain('<b>x</b>');
    expect(out.html).not.toContain('<script>');
    expect(out.html).toContain(escapeHtml(HOSTILE));
    expect(out.html).toContain('href="https://cron.example.com/v1/executions/exe_1"');
    expect(out.text).toMatch(/Status:\s+failed \(HTTP 503\)/);
    expect(out.text).toMatch(/Duration:\s+4\.7 s/);
    expect(out.text).toContain('View execution: https://cron.example.com/v1/executions/exe_1');
    expect(emailAdapter.render(message('succeeded'), { email: 'ops@example.com' }).html).toContain('background:#2da44e');
  });

  it('treats a 5xx SMTP reply as permanent and a 4xx or a lost connection as transient', () => {
    const r = (statusCode: number | null) => emailAdapter.classify({ statusCode, error: 'x', retryAfterMs: null });
    expect(r(550)).toBe('permanent');
    expect(r(451)).toBe('transient');
    expect(r(null)).toBe('transient');
    expect(emailAdapter.classify({ statusCode: 250, error: null, retryAfterMs: null })).toBe('sent');
  });
});

describe('alerts: recovery, held-back count and the snooze link in every format', () => {
  const SNOOZE = 'https://cron.example.com/v1/snooze/abcdefghijklmnopqrstuvwx';
  const failed = (): NotificationMessage => {
    const m = message('failed');
    return { ...m, payload: { ...m.payload, held_back: 2, snooze_url: SNOOZE } as NotificationMessage['payload'] };
  };
  const recovered = (): NotificationMessage => {
    const m = message('succeeded', 'on_recovery');
    return { ...m, payload: { ...m.payload, event: 'execution.recovered', held_back: 0, consecutive_failures: 4 } as NotificationMessage['payload'] };
  };

  it('webhook: the payload as the relay made it', () => {
    expect(JSON.parse(webhookAdapter.render(recovered(), { url: 'https://x' }))).toMatchObject({ event: 'execution.recovered', consecutive_failures: 4 });
    expect(JSON.parse(webhookAdapter.render(failed(), { url: 'https://x' }))).toMatchObject({ held_back: 2, snooze_url: SNOOZE });
  });

  it('chat_a: a green recovery header; a failure with a "Snooze 1 h" button and the held-back count', () => {
    const up = chatAAdapter.render(recovered(), { webhook_url: 'https://x' });
    expect(up.text).toContain('✅');
    expect(up.text).toContain('recovered');
    expect(JSON.stringify(up.blocks)).toContain('Failed runs before: 4');
    const down = chatAAdapter.render(failed(), { webhook_url: 'https://x' });
    const actions = down.blocks.find((b) => b.type === 'actions') as { elements: { text: { text: string }; url: string }[] };
    expect(actions.elements.map((e) => [e.text.text, e.url])).toContainEqual(['Snooze 1 h', SNOOZE]);
    expect(JSON.stringify(down.blocks)).toContain('Held back: 2 earlier notifications of this rule not sent');
  });

  it('chat_b: a green recovery embed; a failure with a Snooze 1 h link', () => {
    expect(chatBAdapter.render(recovered(), { webhook_url: 'https://x' }).embeds[0]).toMatchObject({ color: 0x2da44e });
    expect(chatBAdapter.render(failed(), { webhook_url: 'https://x' }).embeds[0].description).toContain(`[Snooze 1 h](${SNOOZE})`);
  });

  it('chat_c: a green recovery; a failure with a Snooze 1 h link', () => {
    expect(chatCAdapter.render(recovered(), { bot_token: '1:x', chat_id: '1' }).text).toContain('✅');
    expect(chatCAdapter.render(failed(), { bot_token: '1:x', chat_id: '1' }).text).toContain(`<a href="${SNOOZE}">Snooze 1 h</a>`);
  });

  it('email: a green recovery header; a failure with a Snooze 1 h button in the HTML and the link in the text part', () => {
    expect(emailAdapter.render(recovered(), { email: 'ops@example.com' }).html).toContain('background:#2da44e');
    const down = emailAdapter.render(failed(), { email: 'ops@example.com' });
    expect(down.html).toContain(`href="${SNOOZE}"`);
    expect(down.html).toContain('Snooze 1 h');
    expect(down.text).toContain(`Snooze 1 h: ${SNOOZE}`);
  });
});
