import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import got, { type Method } from 'got';
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

/**
 * The outbound client: no redirects, no retries of its own, a hard time limit covering
 * connect, headers and body, and a body read cap so a huge answer costs at most MAX_BODY_BYTES.
 */
export function createHttpClient(options: { allowPrivateTargets: boolean; maxSockets?: number }): HttpClient {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256, scheduling: 'lifo' as const };
  const agent = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  return {
    send(request) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<HttpResult>((resolve) => {
        let settled = false;
        let stream: ReturnType<typeof got.stream> | undefined;
        // got's own timeouts do not bound a body that trickles in forever; this one bounds everything.
        const timer = setTimeout(
          () => finish({ kind: 'error', errorClass: 'TIMEOUT', message: `no complete response within ${request.timeoutMs} ms`, latencyMs: elapsed() }),
          request.timeoutMs,
        );
        const finish = (result: HttpResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          stream?.destroy();
          resolve(result);
        };
        // Node connects to an address literal without any lookup, so guardedLookup never sees it: a
        // literal host (a rendered placeholder, a job saved while private targets were allowed) is checked here.
        const literal = options.allowPrivateTargets ? null : addressLiteral(request.url);
        if (literal !== null && isBlockedAddress(literal)) {
          finish({ kind: 'error', errorClass: 'BLOCKED_TARGET', message: `${literal} is not a public address`, latencyMs: elapsed() });
          return;
        }
        try {
          stream = got.stream(request.url, {
            method: request.method as Method,
            headers: request.headers,
            body: request.body ?? undefined,
            allowGetBody: request.body !== null,
            followRedirect: false,
            throwHttpErrors: false,
            retry: { limit: 0 },
            decompress: true,
            agent,
            dnsLookup: options.allowPrivateTargets ? undefined : (guardedLookup as never),
          });
        } catch (error) {
          finish({ kind: 'error', ...classifyTransportError(error), latencyMs: elapsed() });
          return;
        }
        // A got stream waits for a body to be piped in for methods that take one; there is none.
        if (request.body === null && request.method !== 'GET') stream.end();
        const chunks: Buffer[] = [];
        let size = 0;
        let statusCode = 0;
        let allHeaders: Record<string, string> = {};
        stream.on('response', (response: http.IncomingMessage) => {
          statusCode = response.statusCode ?? 0;
          allHeaders = flatHeaders(response.headers);
        });
        const response = (truncated: boolean): HttpResult => ({
          kind: 'response',
          statusCode,
          headers: keptHeaders(allHeaders),
          allHeaders,
          body: Buffer.concat(chunks),
          truncated,
          latencyMs: elapsed(),
        });
        stream.on('data', (chunk: Buffer) => {
          const room = MAX_BODY_BYTES - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            size += room;
            finish(response(true));
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        stream.on('end', () => finish(response(false)));
        stream.on('error', (error: Error) => finish({ kind: 'error', ...classifyTransportError(error), latencyMs: elapsed() }));
      });
    },
  };
}

/** The first 64 KiB of a body as text, with NUL bytes removed (Postgres text cannot hold them). */
export function bodyPreview(body: Buffer): string {
  return body.subarray(0, PREVIEW_BYTES).toString('utf8').replaceAll('\u0000', '');
}
