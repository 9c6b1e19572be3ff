/**
 * Whether an error means a store (Postgres, Redis) could not serve the request, and why, in one
 * of a few fixed phrases: the API answers such errors 503 and logs them at warn, /readyz shows the
 * phrase. A phrase never holds the driver's message, which names hosts and addresses.
 *
 * The same failure reaches the service in several shapes: pg's errors (a SQLSTATE in `code`, or a
 * socket error's `code`), Prisma's errors over the pg adapter (the driver's error under
 * `meta.driverAdapterError.cause`, as `code`/`originalCode` or as a `kind`; for a raw query the
 * SQLSTATE only inside the message, "Code: `57014`"), pg-pool's own plain errors, which only
 * their message tells apart, and ioredis's.
 */
export type UnavailableReason = 'unreachable' | 'timeout' | 'connection lost' | 'overloaded' | 'starting or stopping';

/**
 * SQLSTATE classes 08 (connection exception), 53 (insufficient resources) and 57 (operator
 * intervention: 57014 is a statement timeout, 57P01 a terminated connection, 57P03 a server
 * starting up or shutting down).
 */
function sqlStateReason(code: string): UnavailableReason | null {
  if (code === '57014') return 'timeout';
  if (code === '57P03') return 'starting or stopping';
  if (code.startsWith('53')) return 'overloaded';
  if (code.startsWith('57')) return 'connection lost';
  if (code.startsWith('08')) return code === '08001' || code === '08004' ? 'unreachable' : 'connection lost';
  return null;
}

const CODES: Record<string, UnavailableReason> = {
  ECONNREFUSED: 'unreachable',
  ENOTFOUND: 'unreachable',
  EAI_AGAIN: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
  ETIMEDOUT: 'timeout',
  ECONNRESET: 'connection lost',
  ECONNABORTED: 'connection lost',
  EPIPE: 'connection lost',
  // Prisma's own codes for the same failures.
  P1001: 'unreachable',
  P1002: 'timeout',
  P1008: 'timeout',
  P1017: 'connection lost',
  P2024: 'timeout',
};

// What the pg adapter makes of socket and connection errors (@prisma/adapter-pg, convertDriverError).
const ADAPTER_KINDS: Record<string, UnavailableReason> = {
  DatabaseNotReachable: 'unreachable',
  TlsConnectionError: 'unreachable',
  SocketTimeout: 'timeout',
  ConnectionClosed: 'connection lost',
  TooManyConnections: 'overloaded',
};

const MESSAGES: [RegExp, UnavailableReason][] = [
  [/timeout exceeded when trying to connect|Connection terminated due to connection timeout/i, 'timeout'],
  [/Unable to start a transaction in the given time/i, 'timeout'],
  [/Connection terminated|Client has encountered a connection error|Connection is closed|Client was closed/i, 'connection lost'],
  [/connect ECONNREFUSED|Can't reach database|getaddrinfo/i, 'unreachable'],
  [/max retries per request/i, 'unreachable'],
];

type ErrorLike = { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };

function ownReason(e: ErrorLike): UnavailableReason | null {
  for (const code of [e.code, e.originalCode]) {
    if (typeof code !== 'string') continue;
    const reason = CODES[code] ?? (/^[0-9A-Z]{5}$/.test(code) ? sqlStateReason(code) : null);
    if (reason) return reason;
  }
  if (typeof e.kind === 'string' && ADAPTER_KINDS[e.kind]) return ADAPTER_KINDS[e.kind];
  if (typeof e.message === 'string') {
    const raw = /Code: `([0-9A-Z]{5})`/.exec(e.message);
    const fromRaw = raw ? sqlStateReason(raw[1]) : null;
    if (fromRaw) return fromRaw;
    for (const [pattern, reason] of MESSAGES) if (pattern.test(e.message)) return reason;
  }
  return null;
}

/** Why the store could not serve, or null when the error is something else (a bug, bad input). */
export function unavailableReason(error: unknown): UnavailableReason | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 12) {
    const e = queue.shift() as ErrorLike | undefined;
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const reason = ownReason(e);
    if (reason) return reason;
    queue.push(e.cause, e.meta?.driverAdapterError);
  }
  return null;
}

/** True when an error means Postgres or Redis could not be reached or could not answer in time: the API answers 503. */
export function isUnavailable(error: unknown): boolean {
  return unavailableReason(error) !== null;
}
