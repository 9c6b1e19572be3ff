import type { AttemptRequest } from '@cronsvc/contracts';
import { PREVIEW_BYTES, type OutboundRequest } from '../http/http-client.js';
import { utf8Prefix } from '../secrets/mask-secrets.js';

/**
 * The request as its attempt records it (docs/adr/020-attempts-record-their-request.md): method,
 * URL, headers and the body's first 64 KiB. `shown` is the request rendered with each secret
 * replaced by [secret], so nothing here holds a secret's value.
 */
export function recordedRequest(shown: OutboundRequest): AttemptRequest {
  const body = shown.body === null ? null : utf8Prefix(shown.body, PREVIEW_BYTES);
  return { method: shown.method, url: shown.url, headers: shown.headers, body, bodyTruncated: body !== null && body.length < (shown.body as string).length };
}
