import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What every log line written on behalf of one request carries, without each function on the
 * way passing a logger down: the API enters a scope per request, and the executor one per
 * attempt, which learns the request id of the execution's creator from its claim.
 */
export interface LogContext {
  requestId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `work` (and everything it starts) in a scope of its own. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return storage.run(context, work);
}

/** The request id of the scope this code runs in, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Names the request of the current scope, once it is known; outside a scope it does nothing. */
export function setRequestIdInScope(requestId: string | null | undefined): void {
  const store = storage.getStore();
  if (store && requestId) store.requestId = requestId;
}
