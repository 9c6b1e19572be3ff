import { AppError } from '../errors/app-error.js';
import type { TriggerValues } from '../templates/step-template.js';
import { MAX_REQUEST_JSON_DEPTH, requestTooDeep, textNestedDeeperThan } from '../validation/json-depth.js';
import { storableValue } from '../validation/storable-text.js';

/**
 * What the public endpoints make of an inbound request (docs/WORKFLOWS.md, "Webhook triggers"): the body as
 * the sender meant it, and the `trigger_input` stored with a triggered execution. Pure functions.
 */

export type TriggerInput = TriggerValues;

/** Never stored: the shared secret itself. */
const DROPPED_HEADERS = new Set(['x-webhook-secret']);
/** Stored as a marker only: credentials of the sender's own. */
const REDACTED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);
export const REDACTED = '[redacted]';

const isJsonType = (type: string) => type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);

/**
 * The body of an inbound call: JSON for JSON content types (400 invalid_json when it does not
 * parse), fields for a form post (a repeated field becomes an array), text for anything else; a
 * body without a content type is read as JSON when it parses and as text otherwise. No body is
 * null. JSON nested deeper than any other request body may be is a 400 before it is parsed, as
 * on every other endpoint (whatever walks it later would overflow the stack).
 */
export function parseInboundBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (!raw || raw.length === 0) return null;
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const text = raw.toString('utf8');
  if (isJsonType(type) || type === '') {
    if (textNestedDeeperThan(raw, MAX_REQUEST_JSON_DEPTH)) throw requestTooDeep();
    try {
      return JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch {
      if (type !== '') throw new AppError('invalid_json', 'request body is not valid JSON');
      return text;
    }
  }
  if (type === 'application/x-www-form-urlencoded') return formFields(new URLSearchParams(text));
  return text;
}

function formFields(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** The peer's address, an IPv4 address mapped into IPv6 written as IPv4. */
export function sourceIp(remoteAddress: string | undefined): string | null {
  if (!remoteAddress) return null;
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice('::ffff:'.length) : remoteAddress;
}

/**
 * `trigger_input` (docs/WORKFLOWS.md): header names lower-cased, `x-webhook-secret` left out,
 * `authorization`, `proxy-authorization` and `cookie` values replaced by `[redacted]`, and NUL
 * and unpaired surrogates replaced wherever a sender put one (body, query, header), since
 * Postgres cannot store them.
 */
export function triggerInput(input: {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  query: Record<string, unknown>;
  remoteAddress: string | undefined;
  receivedAt: Date;
}): TriggerInput {
  const headers: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(input.headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    headers[name] = REDACTED_HEADERS.has(name) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return storableValue({ headers, body: input.body, query: { ...input.query }, source_ip: sourceIp(input.remoteAddress), received_at: input.receivedAt.toISOString() });
}
