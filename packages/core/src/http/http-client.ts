import type { AttemptTimings, TransportErrorClass } from '@cronsvc/contracts';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { prepareRequest, type PreparedRequest } from './request-options.js';
import { ExchangeTimings, requestStarting, timedConnector, totalOnly } from './phase-timings.js';
import { BodyReader, responseEncoding } from './response-body.js';
import { BlockedTargetError, guardedLookup, isBlockedAddress } from './target-guard.js';
import { WorkspacePools, type PoolLease, type PoolLimits } from './workspace-pools.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const PREVIEW_BYTES = 64 * 1024;

const KEPT_HEADERS = [
  'content-type', 'content-length', 'content-encoding', 'location', 'retry-after', 'date', 'server',
  'etag', 'last-modified', 'cache-control', 'x-request-id',
];

/** Sockets per origin in one workspace's pool, as the shared agent had before pools were per workspace. */
export const SOCKETS_PER_ORIGIN = 256;

/** What one client may hold (docs/SECURITY.md, "The outbound client"). */
export const DEFAULT_POOL_LIMITS: PoolLimits = { maxPools: 1_000, maxOpenSockets: 2_048, idleMs: 60_000 };

// How long an idle socket stays open when the server does not say (undici's default), and at
// most when it does: a pool does not keep sockets for minutes because a server would allow it.
const KEEP_ALIVE_MS = 4_000;
const KEEP_ALIVE_MAX_MS = 30_000;

export interface OutboundRequest {
  url: string;
  /** The workspace the request is made for: its requests share connections with no other workspace's. */
  workspaceId: string;
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
      timings: AttemptTimings;
    }
  | { kind: 'error'; errorClass: TransportErrorClass; message: string; latencyMs: number; timings: AttemptTimings };

export interface HttpClient {
  send(request: OutboundRequest): Promise<HttpResult>;
  /** What the client holds right now: workspace pools and open sockets. */
  stats(): { pools: number; idlePools: number; openSockets: number };
  /** Closes every pool once the requests in flight on it have ended. */
  close(): Promise<void>;
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|EPROTO$|ERR_OSSL)/;
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA']);

export function classifyTransportError(error: unknown): { errorClass: TransportErrorClass; message: string } {
  const err = error as { code?: string; message?: string; cause?: unknown };
  const cause = (err.cause ?? {}) as { code?: string };
  if (error instanceof BlockedTargetError || err.cause instanceof BlockedTargetError) {
    return { errorClass: 'BLOCKED_TARGET', message: (err.cause instanceof BlockedTargetError ? err.cause : (error as Error)).message };
  }
  const code = err.code ?? cause.code ?? '';
  const message = err.message ?? String(error);
  if (TIMEOUT_CODES.has(code)) return { errorClass: 'TIMEOUT', message };
  if (DNS_CODES.has(code)) return { errorClass: 'DNS_ERROR', message };
  if (TLS_CODES.test(code)) return { errorClass: 'TLS_ERROR', message };
  return { errorClass: 'CONNECTION_ERROR', message };
}

/**
 * How a dropped connection is worded, as node:http words it, so stored messages read the same
 * whichever transport sent the request: before any response "socket hang up", mid-body "The server
 * aborted pending request".
 */
function dropped(responseStarted: boolean): Error {
  return Object.assign(new Error(responseStarted ? 'The server aborted pending request' : 'socket hang up'), { code: 'ECONNRESET' });
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function keptHeaders(all: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) if (name in all) kept[name] = all[name];
  return kept;
}

/** The URL's host when it is an IP address (brackets of an IPv6 host removed), else null. */
function addressLiteral(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : null;
}

/**
 * One exchange: the undici dispatch handler of a request, which settles its promise exactly
 * once, with a response or an error result, and aborts the request (dropping its connection)
 * whenever it settles before the response ended.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private abandoned = false;
  private reader: BodyReader | null = null;
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly timer: NodeJS.Timeout;
  private readonly timings = new ExchangeTimings();

  constructor(
    private readonly method: string,
    timeoutMs: number,
    private readonly started: number,
    private readonly resolve: (result: HttpResult) => void,
  ) {
    // undici's own timeouts are idle timeouts, which a body trickling in forever never trips; this bounds everything.
    this.timer = setTimeout(() => this.fail(new Error(`no complete response within ${timeoutMs} ms`), 'TIMEOUT'), timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    requestStarting(this.timings);
    // It timed out while waiting for a connection of its pool.
    if (this.abandoned) controller.abort(new Error('abandoned'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx (e.g. 103 Early Hints) come before the final response.
    if (statusCode < 200 || this.settled) return;
    this.status = statusCode;
    const all = flatHeaders(headers);
    const encoding = responseEncoding(this.method, statusCode, all['content-encoding']);
    // Decoded, content-encoding and -length describe bytes the caller never sees, so they are dropped.
    if (encoding !== null) {
      delete all['content-encoding'];
      delete all['content-length'];
    }
    this.headers = all;
    this.reader = new BodyReader(encoding, MAX_BODY_BYTES, {
      // A capped body leaves unread bytes on the connection, so that connection cannot be reused.
      done: (body, truncated) => this.finish(this.response(body, truncated), truncated),
      fail: (error) => this.fail(error),
    });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.reader?.write(chunk);
  }

  onResponseEnd(): void {
    this.reader?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return;
    const code = (error as { code?: string }).code;
    // The connection closed under the exchange: before any response, or before the body ended.
    if (this.reader !== null || code === 'UND_ERR_SOCKET') this.fail(dropped(this.reader !== null));
    else this.fail(error);
  }

  fail(error: unknown, errorClass?: TransportErrorClass): void {
    const classified = classifyTransportError(error);
    const latencyMs = this.elapsed();
    this.finish({ kind: 'error', errorClass: errorClass ?? classified.errorClass, message: classified.message, latencyMs, timings: this.timings.result(latencyMs) }, true);
  }

  private response(body: Buffer, truncated: boolean): HttpResult {
    const latencyMs = this.elapsed();
    return { kind: 'response', statusCode: this.status, headers: keptHeaders(this.headers), allHeaders: this.headers, body, truncated, latencyMs, timings: this.timings.result(latencyMs) };
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }

  /** `abandon` (timeout, error, capped body) also stops reading and aborts the request and its connection. */
  private finish(result: HttpResult, abandon: boolean): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (abandon) {
      this.abandoned = true;
      this.reader?.stop();
      this.controller?.abort(new Error('abandoned'));
      this.resolve(result);
      return;
    }
    // undici hands a kept-alive connection back to its pool one turn of the event loop after the
    // response ended (a setImmediate queued just after this call). Answering a turn later than that
    // lets a request made right away reuse it instead of opening another connection.
    setImmediate(() => setImmediate(this.resolve, result));
  }
}

/**
 * The outbound client: no redirects, no retries of its own, a hard time limit covering
 * connect, headers and body, and a body read cap so a huge answer costs at most MAX_BODY_BYTES.
 * Built on undici's dispatcher API (ADR 005). Each workspace gets its own pool of kept-alive
 * connections, so no connection carries requests of two workspaces.
 */
export function createHttpClient(options: { allowPrivateTargets: boolean; socketsPerOrigin?: number; limits?: Partial<PoolLimits> }): HttpClient {
  const limits = { ...DEFAULT_POOL_LIMITS, ...options.limits };
  // Checks every resolved address at connect time, so a name cannot rebind to a private address.
  // No connect timeout of its own: the exchange's hard limit covers connecting too.
  // Its sockets are watched for the connection's phase timings (phase-timings.ts).
  const connect = timedConnector(options.allowPrivateTargets ? { timeout: 0 } : { timeout: 0, lookup: guardedLookup as unknown as LookupFunction });
  const pools = new WorkspacePools<Agent>(limits, {
    create(sockets) {
      const agent = new Agent({
        connections: options.socketsPerOrigin ?? SOCKETS_PER_ORIGIN,
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MAX_MS,
        headersTimeout: 0,
        bodyTimeout: 0,
        connect,
      });
      agent.on('connect', sockets.opened).on('disconnect', sockets.closed);
      return agent;
    },
    close: (agent) => agent.close().catch(() => undefined),
  });

  const dispatch = (lease: PoolLease<Agent>, request: OutboundRequest, started: number) =>
    new Promise<HttpResult>((resolve) => {
      const settle = (result: HttpResult) => {
        pools.release(lease);
        resolve(result);
      };
      let prepared: PreparedRequest;
      try {
        prepared = prepareRequest(request);
      } catch (error) {
        const latencyMs = Math.round(performance.now() - started);
        settle({ kind: 'error', ...classifyTransportError(error), latencyMs, timings: totalOnly(latencyMs) });
        return;
      }
      // A request undici refuses is not thrown: it reaches the handler's onResponseError.
      lease.pool.dispatch(prepared, new Exchange(prepared.method, request.timeoutMs, started, settle));
    });

  return {
    send(request) {
      const started = performance.now();
      // A connection to an address literal involves no lookup, so guardedLookup never sees it: a
      // literal host (a rendered placeholder, a job saved while private targets were allowed) is checked here.
      const literal = options.allowPrivateTargets ? null : addressLiteral(request.url);
      if (literal !== null && isBlockedAddress(literal)) {
        const latencyMs = Math.round(performance.now() - started);
        return Promise.resolve({ kind: 'error', errorClass: 'BLOCKED_TARGET', message: `${literal} is not a public address`, latencyMs, timings: totalOnly(latencyMs) });
      }
      return dispatch(pools.acquire(request.workspaceId), request, started);
    },
    stats: () => pools.stats(),
    close: () => pools.closeAll(),
  };
}

/** The first 64 KiB of a body as text, with NUL bytes removed (Postgres text cannot hold them). */
export function bodyPreview(body: Buffer): string {
  return body.subarray(0, PREVIEW_BYTES).toString('utf8').replaceAll('\u0000', '');
}
