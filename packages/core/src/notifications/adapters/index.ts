import type { ChannelType } from '@cronsvc/contracts';
import type { ChannelAdapter } from './adapter.js';
import { chatAAdapter } from './chat-a.js';
import { chatBAdapter } from './chat-b.js';
import { chatCAdapter } from './chat-c.js';
import { emailAdapter } from './email.js';
import { webhookAdapter } from './webhook.js';

/** The one place a channel type is looked up: validation, the channel test and the sender all go through it. */
export const CHANNEL_ADAPTERS: Record<ChannelType, ChannelAdapter<unknown>> = {
  webhook: webhookAdapter,
  email: emailAdapter,
  chat_a: chatAAdapter,
  chat_b: chatBAdapter,
  chat_c: chatCAdapter,
};

export * from './adapter.js';
