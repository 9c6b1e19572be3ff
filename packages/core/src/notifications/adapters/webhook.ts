import { createHmac } from 'node:crypto';
import Joi from 'joi';
import type { ChannelAdapter } from './adapter.js';
import { channelUrlSchema, classifyHttp, credentialSchema, postJson, WEBHOOK_STYLE_PERMANENT } from './http-send.js';

/** HMAC-SHA256 of the raw body keyed by the channel's signing secret, as `sha256=<hex>`. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** The payload exactly as the API documents it, as JSON; signed with X-Webhook-Signature when the channel has a secret. */
export const webhookAdapter: ChannelAdapter<string> = {
  type: 'webhook',
  configSchema: Joi.object({ url: channelUrlSchema.required(), signing_secret: credentialSchema }),
  credentialFields: ['url', 'signing_secret'],
  urlFields: ['url'],
  destinationFields: ['url'],
  render(message) {
    return JSON.stringify(message.payload);
  },
  send(body, config, context) {
    const secret = config.signing_secret as string | undefined;
    return postJson(context, config.url as string, body, secret ? { 'X-Webhook-Signature': webhookSignature(secret, body) } : {});
  },
  classify: (result) => classifyHttp(result, WEBHOOK_STYLE_PERMANENT),
};
