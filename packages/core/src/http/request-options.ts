import type http from 'node:http';
import type { OutboundRequest } from './http-client.js';

/**
 * What the client announces it can decode (response-body.ts decodes exactly these). got sent the same
 * list when the caller set no accept-encoding of its own.
 */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The service's user-agent, sent when the job sets none, so targets can tell our calls apart. */
export const DEFAULT_USER_AGENT = 'cronsvc/0.1 (scheduled HTTP job service)';

/** A URL whose scheme is not http or https; worded like got's error so stored messages stay the same. */
export class UnsupportedProtocolError extends Error {
  readonly code = 'ERR_UNSUPPORTED_PROTOCOL';
}

export interface PreparedRequest {
  protocol: 'http:' | 'https:';
  /** Everything http.request needs except the agent and the lookup, which the client adds. */
  options: http.RequestOptions;
}

/**
 * Turns an OutboundRequest into node:http request options, doing by hand what got's option
 * normalisation did. Throws (invalid URL, unsupported protocol, malformed credentials, a body on
 * HEAD); the caller turns that into an error result.
 */
export function prepareRequest(request: OutboundRequest): PreparedRequest {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsupportedProtocolError(`Unsupported protocol: ${url.protocol}`);
  const method = request.method.toUpperCase();
  // got refused a body on HEAD even with allowGetBody (which only lifts the rule for GET).
  if (method === 'HEAD' && request.body !== null) throw new TypeError('The `HEAD` method cannot be used with a body');
  return {
    protocol: url.protocol,
    options: {
      protocol: url.protocol,
      // http.request wants an IPv6 host without the brackets the URL keeps; it adds them back in Host.
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname + url.search,
      method,
      headers: outgoingHeaders(url, request),
    },
  };
}

/**
 * The request headers as got sent them: names lower-cased (a later spelling of the same name wins),
 * its default user-agent first, then content-length for a body, accept-encoding and, for a URL
 * with credentials, basic authorization, each only where got added it.
 */
function outgoingHeaders(url: URL, request: OutboundRequest): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': DEFAULT_USER_AGENT };
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  if (request.body !== null && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
    headers['content-length'] = String(Buffer.byteLength(request.body));
  }
  if (headers['accept-encoding'] === undefined) headers['accept-encoding'] = ACCEPT_ENCODING;
  // got replaced any authorization header with the URL's credentials, percent-decoded.
  if (url.username !== '' || url.password !== '') {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return headers;
}
