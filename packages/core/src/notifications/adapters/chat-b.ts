import Joi from 'joi';
import { summarizeMessage } from '../summarize-message.js';
import type { ChannelAdapter } from './adapter.js';
import { escapeCodeBlock, escapeDiscord, truncate } from './escape.js';
import { channelUrlSchema, classifyHttp, postJson, WEBHOOK_STYLE_PERMANENT } from './http-send.js';
import { TONE_COLOR } from './tone.js';

export interface ChatBMessage {
  content?: string;
  embeds: {
    title: string;
    description: string;
    color: number;
    fields: { name: string; value: string; inline: boolean }[];
    timestamp: string;
  }[];
  allowed_mentions: { parse: string[]; roles: string[] };
}

const snowflake = Joi.string().pattern(/^\d{1,20}$/).messages({ 'string.pattern.base': 'must be a numeric id string' });

// Short values sit side by side; an error message gets the whole width.
const INLINE = new Set(['Job', 'Status', 'Attempts', 'Duration', 'Monitor', 'Expected every', 'Step']);

/**
 * A webhook message with one embed, green for success and recovery, red for failure and down.
 * Everything user-supplied is Markdown-escaped; only the configured roles can be mentioned.
 */
export const chatBAdapter: ChannelAdapter<ChatBMessage> = {
  type: 'chat_b',
  configSchema: Joi.object({
    webhook_url: channelUrlSchema.required(),
    thread_id: snowflake,
    mention_role_ids: Joi.array().items(snowflake).unique().max(25),
    include_output: Joi.boolean().default(false),
  }),
  credentialFields: ['webhook_url'],
  urlFields: ['webhook_url'],
  destinationFields: ['webhook_url', 'thread_id'],
  render(message, config) {
    const s = summarizeMessage(message);
    const roles = (config.mention_role_ids as string[] | undefined) ?? [];
    const description = [`**${escapeDiscord(s.eventName)}**`, ...s.links.map((l) => `[${escapeDiscord(l.label)}](${l.url.replace(/\)/g, '%29')})`)];
    if (config.include_output && s.output) description.push(`\`\`\`\n${escapeCodeBlock(truncate(s.output, 1500))}\n\`\`\``);
    return {
      ...(roles.length > 0 ? { content: roles.map((id) => `<@&${id}>`).join(' ') } : {}),
      embeds: [
        {
          title: truncate(escapeDiscord(s.title), 256),
          description: truncate(description.join('\n'), 4096),
          color: TONE_COLOR[s.tone],
          fields: s.fields.slice(0, 25).map((f) => ({ name: f.label, value: truncate(escapeDiscord(f.value), 1024) || '-', inline: INLINE.has(f.label) })),
          timestamp: s.timestamp,
        },
      ],
      allowed_mentions: { parse: [], roles },
    };
  },
  send(message, config, context) {
    const url = new URL(config.webhook_url as string);
    if (config.thread_id) url.searchParams.set('thread_id', config.thread_id as string);
    return postJson(context, url.toString(), JSON.stringify(message));
  },
  classify: (result) => classifyHttp(result, WEBHOOK_STYLE_PERMANENT),
};
