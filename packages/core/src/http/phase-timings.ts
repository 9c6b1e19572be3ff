import type { AttemptTimings } from '@cronsvc/contracts';
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';

/**
 * Per-phase timings of an attempt (docs/EXECUTIONS.md, "Timings"), taken from undici's own
 * signals rather than by hand around the call:
 * - the connection's phases from the socket undici's connector makes: its `lookup`, `connect` and
 *   `secureConnect` events, from the moment the connector is called;
 * - the request's from undici's diagnostics channels: `undici:client:sendHeaders` (the request
 *   written on a socket) and `undici:request:headers` (the response's headers arrived).
 * A connection's phases belong to the first request sent on it: a request on a reused connection
 * has null dns, connect and tls.
 */

/** Marks on one connection, in performance.now() milliseconds. */
interface ConnectionMarks {
  start: number;
  lookupEnd: number | null;
  connectEnd: number | null;
  tlsEnd: number | null;
  /** Whether a request was sent on it already: later requests reuse it. */
  used: boolean;
}

/** What the request side reports to its exchange. */
export interface TimingRecorder {
  /** The request's headers were written on `socket`. */
  sent(socket: Socket): void;
  /** The response's headers arrived. */
  headers(): void;
}

const connections = new WeakMap<object, ConnectionMarks>();
const recorders = new WeakMap<object, TimingRecorder>();
/**
 * The exchange whose request undici is writing right now. undici calls the handler's
 * onRequestStart and then publishes sendHeaders in the same synchronous step (client-h1's
 * writeH1), so the request published next is this exchange's. Cleared at the next microtask in
 * case the request was aborted in between.
 */
let starting: TimingRecorder | null = null;

export function requestStarting(recorder: TimingRecorder): void {
  starting = recorder;
  queueMicrotask(() => {
    if (starting === recorder) starting = null;
  });
}

function onSendHeaders(message: unknown): void {
  const { request, socket } = message as { request: object; socket: Socket };
  const recorder = starting;
  // Other undici copies (the global fetch) publish on the same channels: only our exchanges are tracked.
  if (recorder === null) return;
  starting = null;
  recorders.set(request, recorder);
  recorder.sent(socket);
}

function onHeaders(message: unknown): void {
  const { request } = message as { request: object };
  recorders.get(request)?.headers();
}

let subscribed = false;
function subscribe(): void {
  if (subscribed) return;
  subscribed = true;
  diagnostics.subscribe('undici:client:sendHeaders', onSendHeaders);
  diagnostics.subscribe('undici:request:headers', onHeaders);
}

/** The marks of a socket made by timedConnector, or undefined for one it did not make. */
export function connectionMarks(socket: object): ConnectionMarks | undefined {
  return connections.get(socket);
}

/** undici's connector, with each socket it makes watched for its lookup, connect and TLS ends. */
export function timedConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  subscribe();
  const connect = buildConnector(options);
  return (opts, callback) => {
    const marks: ConnectionMarks = { start: performance.now(), lookupEnd: null, connectEnd: null, tlsEnd: null, used: false };
    const socket = connect(opts, callback) as unknown as Socket | undefined;
    if (socket && typeof socket.once === 'function') {
      connections.set(socket, marks);
      socket.once('lookup', () => (marks.lookupEnd = performance.now()));
      socket.once('connect', () => (marks.connectEnd = performance.now()));
      socket.once('secureConnect', () => (marks.tlsEnd = performance.now()));
    }
    return socket as never;
  };
}

const span = (from: number | null, to: number | null): number | null => (from === null || to === null ? null : Math.max(0, Math.round(to - from)));

/** The timings of one exchange, built from its marks. */
export class ExchangeTimings implements TimingRecorder {
  private connection: ConnectionMarks | null = null;
  private sentAt: number | null = null;
  private headersAt: number | null = null;

  sent(socket: Socket): void {
    this.sentAt = performance.now();
    const marks = connections.get(socket);
    if (marks !== undefined && !marks.used) {
      marks.used = true;
      this.connection = marks;
    }
  }

  headers(): void {
    if (this.headersAt === null) this.headersAt = performance.now();
  }

  /** The timings now, `totalMs` being the whole attempt's. */
  result(totalMs: number): AttemptTimings {
    const c = this.connection;
    const tcpFrom = c === null ? null : (c.lookupEnd ?? c.start);
    return {
      dns_ms: c === null ? null : span(c.start, c.lookupEnd),
      connect_ms: c === null ? null : span(tcpFrom, c.connectEnd),
      tls_ms: c === null ? null : span(c.connectEnd, c.tlsEnd),
      ttfb_ms: span(this.sentAt, this.headersAt),
      total_ms: totalMs,
    };
  }
}

/** Timings of an attempt that sent nothing, or failed before a request was written. */
export function totalOnly(totalMs: number): AttemptTimings {
  return { dns_ms: null, connect_ms: null, tls_ms: null, ttfb_ms: null, total_ms: totalMs };
}
