import Joi from 'joi';
import { placeholderSafeUrl } from '../../templates/template.js';
import { summarizeMessage } from '../summarize-message.js';
import type { ChannelAdapter } from './adapter.js';
import { escapeHtml, truncate } from './escape.js';
import { classifyHttp, credentialSchema, fromHttpResult, sendJson } from './http-send.js';
import { TONE_EMOJI } from './tone.js';

export interface ChatCMessage {
  chat_id: string;
  text: string;
  parse_mode: 'HTML';
  disable_web_page_preview: boolean;
  message_thread_id?: number;
}

// Letters, digits, ':', '_' and '-': a bot token goes into the request path as it is.
const BOT_TOKEN = /^[A-Za-z0-9:_-]+$/;

const PERMANENT: ReadonlySet<number> = new Set([400, 401, 403, 404]);

/** The bot API's own retry hint, sent in the body of a 429 as parameters.retry_after (seconds). */
function retryAfterInBody(body: Buffer): number | null {
  try {
    const seconds = (JSON.parse(body.toString('utf8')) as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof seconds === 'number' && seconds >= 0 ? Math.min(seconds, 3600) * 1000 : null;
  } catch {
    return null;
  }
}

/** A bot message in HTML parse mode through `<CHAT_C_API_BASE>/bot<token>/sendMessage`; user text is HTML-escaped. */
export const chatCAdapter: ChannelAdapter<ChatCMessage> = {
  type: 'chat_c',
  configSchema: Joi.object({
    bot_token: credentialSchema
      .required()
      .custom((value: string, helpers) => (BOT_TOKEN.test(placeholderSafeUrl(value)) ? value : helpers.message({ custom: 'must be a bot token (letters, digits, ":", "_" and "-")' }))),
    chat_id: Joi.string().pattern(/^-?\d{1,20}$/).required().messages({ 'string.pattern.base': 'must be a numeric chat id as a string (negative for groups)' }),
    message_thread_id: Joi.alternatives(Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER), Joi.string().pattern(/^[1-9]\d{0,14}$/)).messages({
      'alternatives.match': 'must be a positive integer (or one as a string)',
    }),
    disable_web_page_preview: Joi.boolean().default(true),
    include_output: Joi.boolean().default(false),
  }),
  credentialFields: ['bot_token'],
  urlFields: [],
  destinationFields: ['bot_token', 'chat_id', 'message_thread_id'],
  render(message, config) {
    const s = summarizeMessage(message);
    const lines = [`<b>${TONE_EMOJI[s.tone]} ${escapeHtml(truncate(s.title, 300))}</b>`, `<i>${escapeHtml(s.eventName)}</i>`, ''];
    for (const f of s.fields) lines.push(`<b>${escapeHtml(f.label)}:</b> ${escapeHtml(truncate(f.value, 300))}`);
    if (s.links.length > 0) lines.push('', s.links.map((l) => `<a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a>`).join(' · '));
    if (config.include_output && s.output) lines.push('', `<pre>${escapeHtml(truncate(s.output, 1500))}</pre>`);
    const thread = config.message_thread_id === undefined ? undefined : Number(config.message_thread_id);
    return {
      chat_id: config.chat_id as string,
      text: lines.join('\n'),
      parse_mode: 'HTML',
      disable_web_page_preview: config.disable_web_page_preview !== false,
      ...(thread === undefined ? {} : { message_thread_id: thread }),
    };
  },
  async send(message, config, context) {
    const token = config.bot_token as string;
    if (!BOT_TOKEN.test(token)) return { statusCode: null, error: 'bot_token is not a valid bot token', retryAfterMs: null, unrecoverable: true };
    const result = await sendJson(context, `${context.chatCApiBase}/bot${token}/sendMessage`, JSON.stringify(message));
    const sent = fromHttpResult(result, context.now);
    if (result.kind === 'response' && result.statusCode === 429 && sent.retryAfterMs === null) return { ...sent, retryAfterMs: retryAfterInBody(result.body) };
    return sent;
  },
  classify: (result) => classifyHttp(result, PERMANENT),
};
