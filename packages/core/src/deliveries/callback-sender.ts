import { EXECUTION_ID_HEADER } from '../http/build-request.js';
import { classifyHttp, postJson, WEBHOOK_STYLE_PERMANENT } from '../notifications/adapters/http-send.js';
import type { Sender } from '../notifications/adapters/adapter.js';
import { signatureHeaders, type SigningKeys } from '../signatures/sign.js';

export interface CallbackTarget {
  url: string;
  executionId: string;
  keys: SigningKeys;
}

/**
 * An execution's callback (on_success_url / on_failure_url): the execution event as JSON, signed
 * like the execution's own requests, with the execution id as webhook-id on every attempt.
 */
export const callbackSender: Sender<string, CallbackTarget> = {
  render(message) {
    return JSON.stringify(message.payload);
  },
  send(body, target, context) {
    const signature = signatureHeaders(target.keys, target.executionId, Math.floor(context.now.getTime() / 1000), body);
    return postJson(context, target.url, body, { 'User-Agent': 'cron-service-callback', [EXECUTION_ID_HEADER]: target.executionId, ...signature });
  },
  classify: (result) => classifyHttp(result, WEBHOOK_STYLE_PERMANENT),
};
