const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  // 57014: a statement cancelled by statement_timeout (see DB_STATEMENT_TIMEOUT_MS), an overloaded database.
  '57P01', '57P02', '57P03', '53300', '57014', 'P1001', 'P1002', 'P1008', 'P1017', 'P2024',
]);
const NETWORK_MESSAGES = /Connection terminated|Client has encountered a connection error|connect ECONNREFUSED|Connection is closed|Can't reach database|timeout exceeded when trying to connect/i;

/** True when an error means Postgres or Redis could not be reached, which the API answers with 503. */
export function isUnavailable(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 6; depth++) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && NETWORK_MESSAGES.test(e.message)) return true;
    e = e.cause as typeof e;
  }
  return false;
}
