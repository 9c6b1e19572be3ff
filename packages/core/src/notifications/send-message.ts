import type { SendResult } from './delivery-policy.js';
import type { SendContext, Sender } from './adapters/index.js';
import type { NotificationMessage } from './notification-message.js';
import { maskSecrets } from '../secrets/mask-secrets.js';

/** How long one send of a notification (a delivery attempt, a channel test) may take. */
export const SEND_TIMEOUT_MS = 10_000;

/**
 * Renders, sends and judges one message. A sender that throws (a credential that makes no valid
 * URL once resolved) fails it for good; secret values are masked out of the reason.
 */
export async function sendMessage(
  sender: Sender<unknown, unknown>,
  message: NotificationMessage,
  config: unknown,
  context: SendContext,
  secretValues: string[],
): Promise<{ result: SendResult; classification: 'sent' | 'transient' | 'permanent' }> {
  let result: SendResult;
  try {
    result = await sender.send(sender.render(message, config), config, context);
  } catch (error) {
    result = { statusCode: null, error: `cannot send: ${(error as Error).message}`, retryAfterMs: null, unrecoverable: true };
  }
  if (result.error !== null) result = { ...result, error: maskSecrets(result.error, secretValues) };
  return { result, classification: sender.classify(result) };
}
