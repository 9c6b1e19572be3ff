import Joi from 'joi';
import { summarizeMessage } from '../summarize-message.js';
import type { ChannelAdapter } from './adapter.js';
import { escapeSlack, truncate } from './escape.js';
import { channelUrlSchema, classifyHttp, postJson, WEBHOOK_STYLE_PERMANENT } from './http-send.js';
import { TONE_EMOJI } from './tone.js';

export interface ChatAMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

const plain = (text: string, max: number) => ({ type: 'plain_text', text: truncate(text, max), emoji: true });

/**
 * An incoming-webhook message: `text` is the notification's plaintext fallback, `blocks` the rich
 * message. User-supplied text goes into plain_text objects and preformatted rich text, which the
 * chat does not format, and is escaped where it has to be mrkdwn. `mention_text` is the channel
 * owner's own mrkdwn (e.g. `<!here>`) and is sent as written.
 */
export const chatAAdapter: ChannelAdapter<ChatAMessage> = {
  type: 'chat_a',
  configSchema: Joi.object({
    webhook_url: channelUrlSchema.required(),
    mention_text: Joi.string().max(500),
    include_output: Joi.boolean().default(false),
  }).rename('url', 'webhook_url'),
  credentialFields: ['webhook_url'],
  urlFields: ['webhook_url'],
  destinationFields: ['webhook_url'],
  aliases: { url: 'webhook_url' },
  render(message, config) {
    const s = summarizeMessage(message);
    const mention = config.mention_text as string | undefined;
    const headline = `${TONE_EMOJI[s.tone]} ${s.title}`;
    const blocks: Record<string, unknown>[] = [];
    if (mention) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: mention } });
    blocks.push({ type: 'header', text: plain(headline, 150) });
    blocks.push({ type: 'section', fields: s.fields.slice(0, 10).map((f) => plain(`${f.label}: ${f.value}`, 2000)) });
    blocks.push({ type: 'context', elements: [plain(`${s.eventName} · ${s.timestamp}`, 2000)] });
    if (config.include_output && s.output) {
      blocks.push({ type: 'rich_text', elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text', text: truncate(s.output, 2500) }] }] });
    }
    if (s.links.length > 0) {
      blocks.push({ type: 'actions', elements: s.links.map((l) => ({ type: 'button', text: plain(l.label, 75), url: l.url })) });
    }
    return { text: [mention, escapeSlack(headline)].filter(Boolean).join(' '), blocks };
  },
  send(message, config, context) {
    return postJson(context, config.webhook_url as string, JSON.stringify(message));
  },
  classify: (result) => classifyHttp(result, WEBHOOK_STYLE_PERMANENT),
};
