import { createHmac } from 'node:crypto';
import type { OutboundRequest } from '../http/http-client.js';

export interface SigningKeys {
  current: Buffer;
  /** Set only within 24 h of a rotation, so targets still holding the old key keep verifying. */
  previous?: Buffer;
}

export const SIGNATURE_HEADER = 'X-Cron-Service-Signature';
const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature', SIGNATURE_HEADER.toLowerCase()];

function v1(key: Buffer, content: string): string {
  return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
}

/**
 * Standard Webhooks headers (docs/SECURITY.md, "Verifying signatures") for one request. `body` must be the exact string
 * sent ('' for none): the signature covers raw bytes, so re-serialising would break it.
 */
export function signatureHeaders(keys: SigningKeys, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  // A fractional or huge value would print as "1.7e9" or "1700000000.5", which no verifier parses.
  if (!Number.isSafeInteger(timestampSeconds)) throw new RangeError(`timestampSeconds must be whole seconds, got ${timestampSeconds}`);
  const content = `${messageId}.${timestampSeconds}.${body}`;
  const signatures = [v1(keys.current, content)];
  if (keys.previous) signatures.push(v1(keys.previous, content));
  const signature = signatures.join(' ');
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
    [SIGNATURE_HEADER]: signature,
  };
}

/**
 * The request with these signature headers (signatureHeaders of its exact body). Job-supplied
 * headers of the same names (in any case) are dropped first, so a job cannot send a second,
 * forged signature alongside ours.
 */
export function withSignature(request: OutboundRequest, signature: Record<string, string>): OutboundRequest {
  const kept = Object.entries(request.headers).filter(([name]) => !SIGNED_HEADERS.includes(name.toLowerCase()));
  return { ...request, headers: { ...Object.fromEntries(kept), ...signature } };
}
