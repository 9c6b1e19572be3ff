import type { ChannelType } from '@cronsvc/contracts';
import type Joi from 'joi';
import type { Classification, SendResult } from '../delivery-policy.js';
import type { HttpClient } from '../../http/http-client.js';
import type { NotificationMessage } from '../notification-message.js';
import type { Mailer } from '../mailer.js';

/** A channel's config with its defaults, credentials included (and resolved, when sending). */
export type ChannelConfig = Record<string, unknown>;

/** What a send needs besides the message and the channel's config. */
export interface SendContext {
  http: HttpClient;
  /** Null when SMTP_URL is not set. */
  mailer: Mailer | null;
  /** The workspace the message is sent for: its requests go out on that workspace's connections. */
  workspaceId: string;
  /** The delivery id (a one-off id for a channel test): the idempotency key receivers see. */
  messageId: string;
  /** Whose trace the message's request belongs to: its execution's id, else the message id. */
  traceKey?: string;
  timeoutMs: number;
  /** Base URL of chat_c's bot API (CHAT_C_API_BASE). */
  chatCApiBase: string;
  now: Date;
}

/** How a notification looks at one kind of receiver, how it is sent, and how the answer is judged. */
export interface Sender<Rendered, Config = ChannelConfig> {
  render(message: NotificationMessage, config: Config): Rendered;
  send(rendered: Rendered, config: Config, context: SendContext): Promise<SendResult>;
  classify(result: SendResult): Classification;
}

/**
 * One channel type (docs/adr/009): a sender plus how its config looks. The adapters map is the
 * only place a type is looked up.
 */
export interface ChannelAdapter<Rendered> extends Sender<Rendered> {
  readonly type: ChannelType;
  /** The config as stored after defaults, credentials included. */
  readonly configSchema: Joi.ObjectSchema;
  /** Config fields that are credentials: stored encrypted, never returned, may reference secrets. */
  readonly credentialFields: readonly string[];
  /** Config fields holding a URL the channel posts to: the target guard checks them when saved. */
  readonly urlFields: readonly string[];
  /**
   * Config fields that together name who receives a message: channels of a workspace that agree
   * on them are one destination, and an event reaches a destination once, however many of its
   * channels subscribe to it.
   */
  readonly destinationFields: readonly string[];
  /** Other names a config field is accepted under (the schema renames them), alias -> field. */
  readonly aliases?: Readonly<Record<string, string>>;
}
