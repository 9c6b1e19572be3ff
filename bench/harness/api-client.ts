// The service's public API as a bench client sees it: JSON over HTTP with the bench's API token.
import type { BenchContext } from './context.js';

/** POSTs `body` to the running service's API; throws with the answer when it is not 2xx. */
export async function apiPost<T>(ctx: BenchContext, path: string, body: unknown): Promise<T> {
  if (!ctx.service) throw new Error('the service is not running');
  const res = await fetch(`${ctx.service.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ctx.apiToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}
