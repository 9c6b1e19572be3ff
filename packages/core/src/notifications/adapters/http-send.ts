import Joi from 'joi';
import { traceparent, TRACEPARENT_HEADER } from '../../http/traceparent.js';
import type { Classification, SendResult } from '../delivery-policy.js';
import { retryAfterMs } from '../delivery-policy.js';
import type { HttpResult } from '../../http/http-client.js';
import { placeholderSafeUrl } from '../../templates/template.js';
import type { SendContext } from './adapter.js';
import { truncate } from './escape.js';

export const NOTIFIER_USER_AGENT = 'cron-service-notifier';

/** A URL a channel posts to: http(s), and still one with its `{{secret.x}}` placeholders filled in. */
export const channelUrlSchema = Joi.string()
  .max(2048)
  .custom((value: string, helpers) => {
    const url = placeholderSafeUrl(value);
    return URL.canParse(url) && /^https?:$/.test(new URL(url).protocol) ? value : helpers.message({ custom: 'must be a valid http or https URL' });
  });

/** A credential string: up to 1 KiB, and no control characters (it ends up in a header or a URL). */
export const credentialSchema = Joi.string().max(1024).pattern(/^[^\u0000-\u001f\u007f]*$/).messages({ 'string.pattern.base': 'must not contain control characters' });

/** The receiver's answer as a SendResult: its status, and on failure the start of its body as the reason. */
export function fromHttpResult(result: HttpResult, now: Date): SendResult {
  if (result.kind === 'error') {
    return { statusCode: null, error: `${result.errorClass}: ${result.message}`, retryAfterMs: null, unrecoverable: result.errorClass === 'BLOCKED_TARGET' };
  }
  const code = result.statusCode;
  if (code >= 200 && code < 300) return { statusCode: code, error: null, retryAfterMs: null };
  const body = truncate(result.body.toString('utf8').replace(/\s+/g, ' ').trim(), 200);
  return { statusCode: code, error: body ? `receiver answered ${code}: ${body}` : `receiver answered ${code}`, retryAfterMs: retryAfterMs(result.allHeaders['retry-after'], now) };
}

/** POSTs a JSON body with the delivery id as Idempotency-Key (the same on every attempt of a delivery). */
export function sendJson(context: SendContext, url: string, body: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return context.http.send({
    url,
    workspaceId: context.workspaceId,
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': NOTIFIER_USER_AGENT,
      'Idempotency-Key': context.messageId,
      ...headers,
      [TRACEPARENT_HEADER]: traceparent(context.traceKey ?? context.messageId),
    },
    body,
    timeoutMs: context.timeoutMs,
  });
}

export async function postJson(context: SendContext, url: string, body: string, headers: Record<string, string> = {}): Promise<SendResult> {
  return fromHttpResult(await sendJson(context, url, body, headers), context.now);
}

/** 2xx is sent; the type's permanent statuses and a refused target fail at once; the rest is retried. */
export function classifyHttp(result: SendResult, permanent: ReadonlySet<number>): Classification {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return 'sent';
  if (result.unrecoverable) return 'permanent';
  return result.statusCode !== null && permanent.has(result.statusCode) ? 'permanent' : 'transient';
}

/** webhook, chat_a and chat_b: statuses a retry cannot fix (docs/NOTIFICATIONS.md, "Deliveries"). */
export const WEBHOOK_STYLE_PERMANENT: ReadonlySet<number> = new Set([400, 401, 403, 404, 410, 413, 422]);
