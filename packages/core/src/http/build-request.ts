import type { OutboundRequest } from './http-client.js';
import type { RequestSpec } from '@cronsvc/contracts';

export const EXECUTION_ID_HEADER = 'X-Cron-Service-Execution-Id';

function hasHeader(headers: Record<string, string>, name: string): boolean {
  const lower = name.toLowerCase();
  return Object.keys(headers).some((h) => h.toLowerCase() === lower);
}

/**
 * Encodes a job's body as docs/JOBS.md ("The request") says: objects and arrays as JSON, strings as given,
 * null as no body; a Content-Type is added only when the job sets none.
 */
export function encodeBody(body: unknown, headers: Record<string, string>): { body: string | null; headers: Record<string, string> } {
  if (body === null || body === undefined) return { body: null, headers };
  const isText = typeof body === 'string';
  const encoded = isText ? body : JSON.stringify(body);
  if (hasHeader(headers, 'content-type')) return { body: encoded, headers };
  return { body: encoded, headers: { ...headers, 'Content-Type': isText ? 'text/plain; charset=utf-8' : 'application/json' } };
}

export function buildRequest(spec: RequestSpec, executionId: string, workspaceId: string): OutboundRequest {
  const { body, headers } = encodeBody(spec.body, { ...spec.headers });
  return {
    url: spec.url,
    workspaceId,
    method: spec.method,
    headers: { ...headers, [EXECUTION_ID_HEADER]: executionId },
    body,
    timeoutMs: spec.timeout_seconds * 1000,
  };
}
