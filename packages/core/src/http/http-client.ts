import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { prepareRequest } from './request-options.js';
import { readBody, responseEncoding } from './response-body.js';
import { BlockedTargetError, guardedLookup, isBlockedAddress } from './target-guard.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const PREVIEW_BYTES = 64 * 1024;

const KEPT_HEADERS = [
  'content-type', 'content-length', 'content-encoding', 'location', 'retry-after', 'date', 'server',
  'etag', 'last-modified', 'cache-control', 'x-request-id',
];

export type TransportErrorClass = 'TIMEOUT' | 'CONNECTION_ERROR' | 'DNS_ERROR' | 'TLS_ERROR' | 'BLOCKED_TARGET';

export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Raw bytes to send, already encoded; null sends no body. */
  body: string | null;
  timeoutMs: number;
}

/** What a call produced: a response (any status) or a transport failure. Never thrown. */
export type HttpResult =
  | {
      kind: 'response';
      statusCode: number;
      /** The headers worth storing with the attempt. */
      headers: Record<string, string>;
      /** Every response header, for assertions; not stored. */
      allHeaders: Record<string, string>;
      body: Buffer;
      truncated: boolean;
      latencyMs: number;
    }
  | { kind: 'error'; errorClass: TransportErrorClass; message: string; latencyMs: number };

export interface HttpClient {
  send(request: OutboundRequest): Promise<HttpResult>;
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|EPROTO$|ERR_OSSL)/;

export function classifyTransportError(error: unknown): { errorClass: TransportErrorClass; message: string } {
  const err = error as { code?: string; message?: string; cause?: unknown };
  const cause = (err.cause ?? {}) as { code?: string };
  if (error instanceof BlockedTargetError || err.cause instanceof BlockedTargetError) {
    return { errorClass: 'BLOCKED_TARGET', message: (err.cause instanceof BlockedTargetError ? err.cause : (error as Error)).message };
  }
  const code = err.code ?? cause.code ?? '';
  const message = err.message ?? String(error);
  if (code === 'ETIMEDOUT' || err.constructor?.name === 'TimeoutError') return { errorClass: 'TIMEOUT', message };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') return { errorClass: 'DNS_ERROR', message };
  if (TLS_CODES.test(code)) return { errorClass: 'TLS_ERROR', message };
  return { errorClass: 'CONNECTION_ERROR', message };
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function keptHeaders(all: Record<string, string>): Record<string, string> {
  return Object.fromEntries(KEPT_HEADERS.filter((name) => name in all).map((name) => [name, all[name]]));
}

/** The URL's host when it is an IP address (brackets of an IPv6 host removed), else null. */
function addressLiteral(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : null;
}

/** The response headers as the result reports them; decoded, content-encoding and -length describe bytes the caller never sees (got dropped them too). */
function responseHeaders(response: http.IncomingMessage, decoded: boolean): Record<string, string> {
  const all = flatHeaders(response.headers);
  if (decoded) {
    delete all['content-encoding'];
    delete all['content-length'];
  }
  return all;
}

/**
 * The outbound client: no redirects, no retries of its own, a hard time limit covering
 * connect, headers and body, and a body read cap so a huge answer costs at most MAX_BODY_BYTES.
 * Built on node:http directly: got's per-request option handling cost more CPU than the
 * request itself (ADR 005).
 */
export function createHttpClient(options: { allowPrivateTargets: boolean; maxSockets?: number }): HttpClient {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256, scheduling: 'lifo' as const };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };
  const transports = { 'http:': http, 'https:': https };
  // Checks every resolved address at connect time, so a name cannot rebind to a private address.
  const lookup = options.allowPrivateTargets ? undefined : (guardedLookup as unknown as LookupFunction);
  return {
    send(request) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<HttpResult>((resolve) => {
        let settled = false;
        let req: http.ClientRequest | undefined;
        let stopBody: (() => void) | undefined;
        // Node's own timeouts are idle timeouts, which a body trickling in forever never trips; this bounds everything.
        const timer = setTimeout(
          () => finish({ kind: 'error', errorClass: 'TIMEOUT', message: `no complete response within ${request.timeoutMs} ms`, latencyMs: elapsed() }, true),
          request.timeoutMs,
        );
        /** `abandon` (timeout, error, capped body) also stops reading and destroys the request and its socket. */
        const finish = (result: HttpResult, abandon: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (abandon) {
            stopBody?.();
            req?.destroy();
          }
          resolve(result);
        };
        const fail = (error: unknown) => finish({ kind: 'error', ...classifyTransportError(error), latencyMs: elapsed() }, true);
        // Node connects to an address literal without any lookup, so guardedLookup never sees it: a
        // literal host (a rendered placeholder, a job saved while private targets were allowed) is checked here.
        const literal = options.allowPrivateTargets ? null : addressLiteral(request.url);
        if (literal !== null && isBlockedAddress(literal)) {
          finish({ kind: 'error', errorClass: 'BLOCKED_TARGET', message: `${literal} is not a public address`, latencyMs: elapsed() }, false);
          return;
        }
        try {
          const { protocol, options: requestOptions } = prepareRequest(request);
          const agent = agents[protocol];
          // Throws on a method or header value that is not valid HTTP.
          req = transports[protocol].request(lookup ? { ...requestOptions, agent, lookup } : { ...requestOptions, agent });
        } catch (error) {
          fail(error);
          return;
        }
        const method = req.method;
        // Stays attached after settling: destroying a request makes it emit "socket hang up".
        req.on('error', fail);
        req.on('response', (response) => {
          const encoding = responseEncoding(method, response);
          const allHeaders = responseHeaders(response, encoding !== null);
          const result = (body: Buffer, truncated: boolean): HttpResult => ({
            kind: 'response',
            statusCode: response.statusCode ?? 0,
            headers: keptHeaders(allHeaders),
            allHeaders,
            body,
            truncated,
            latencyMs: elapsed(),
          });
          stopBody = readBody(response, encoding, MAX_BODY_BYTES, {
            // A capped body leaves unread bytes on the connection, so that socket cannot be reused.
            done: (body, truncated) => finish(result(body, truncated), truncated),
            fail,
          });
        });
        // A body is sent whenever there is one, on GET too (as got's allowGetBody did).
        if (request.body !== null) req.end(request.body);
        else req.end();
      });
    },
  };
}

/** The first 64 KiB of a body as text, with NUL bytes removed (Postgres text cannot hold them). */
export function bodyPreview(body: Buffer): string {
  return body.subarray(0, PREVIEW_BYTES).toString('utf8').replaceAll('\u0000', '');
}
