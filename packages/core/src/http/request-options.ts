import type { OutboundRequest } from './http-client.js';
import { isServiceSetHeader, isValidHeaderName, isValidHeaderValue } from './request-headers.js';

/**
 * What the client announces it can decode (response-body.ts decodes exactly these), when the job
 * sets no accept-encoding of its own.
 */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The service's user-agent, sent when the job sets none, so targets can tell our calls apart. */
export const DEFAULT_USER_AGENT = 'cronsvc/0.1 (scheduled HTTP job service)';

/** A URL whose scheme is not http or https; its message reads as attempts recorded before have it. */
export class UnsupportedProtocolError extends Error {
  readonly code = 'ERR_UNSUPPORTED_PROTOCOL';
}

/** A header that cannot be sent as it is; the message names the header, never its value (it may hold a secret). */
export class InvalidHeaderError extends Error {
  readonly code = 'ERR_INVALID_HEADER';
}

export interface PreparedRequest {
  /** `http://host:port`, the key of the connection pool. */
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * Turns an OutboundRequest into what the transport sends. Throws (invalid URL, unsupported
 * protocol, malformed credentials, a body on HEAD, a header that cannot be sent); the caller
 * turns that into an error result.
 */
export function prepareRequest(request: OutboundRequest): PreparedRequest {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsupportedProtocolError(`Unsupported protocol: ${url.protocol}`);
  const method = request.method.toUpperCase();
  // A HEAD answer has no body, and a HEAD request with one is refused by many servers: it is never sent.
  if (method === 'HEAD' && request.body !== null) throw new TypeError('The `HEAD` method cannot be used with a body');
  return { origin: url.origin, path: url.pathname + url.search, method, headers: outgoingHeaders(url, request), body: request.body };
}

/**
 * The request headers: names lower-cased (a later spelling of the same name wins), the default
 * user-agent first, accept-encoding unless the job set one and, for a URL with credentials, basic
 * authorization. Framing and connection headers are dropped: the transport frames the request
 * from the body it sends (a job stored before they were refused at save may still hold them).
 */
function outgoingHeaders(url: URL, request: OutboundRequest): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': DEFAULT_USER_AGENT };
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || isServiceSetHeader(name)) continue;
    if (!isValidHeaderName(name)) throw new InvalidHeaderError(`header name ${JSON.stringify(name)} is not an HTTP token`);
    // A value can turn bad after it was saved: a secret or variable rendered into it may hold CR or LF.
    if (!isValidHeaderValue(value)) throw new InvalidHeaderError(`header "${name}" cannot be sent: its value holds CR, LF, NUL or another character a header may not carry`);
    headers[name.toLowerCase()] = value;
  }
  if (headers['accept-encoding'] === undefined) headers['accept-encoding'] = ACCEPT_ENCODING;
  // Credentials in the URL win over an authorization header, percent-decoded, as browsers and curl do.
  if (url.username !== '' || url.password !== '') {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return headers;
}
