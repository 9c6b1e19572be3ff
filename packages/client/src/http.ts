import type { ErrorEnvelope } from '@cronsvc/contracts';
import { ApiError, NetworkError } from './errors.js';

/** Query parameters; an array repeats its parameter (`tag=a&tag=b`). */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Public endpoints (ping) take no bearer token. */
  anonymous?: boolean;
}

export interface HttpOptions {
  baseUrl: string;
  token?: string;
  timeoutMs?: number;
  userAgent?: string;
}

export type Send = <T>(method: string, path: string, options?: RequestOptions) => Promise<T>;

export function buildUrl(baseUrl: string, path: string, query: Query = {}): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
    else if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

function errorFrom(status: number, text: string): ApiError {
  try {
    const { error } = JSON.parse(text) as ErrorEnvelope;
    if (error && typeof error.code === 'string') return new ApiError(status, error.code, error.message, error.details ?? []);
  } catch {
    // Not the API's envelope (a proxy's page, say): report the status with the start of the text.
  }
  return new ApiError(status, `http_${status}`, text.slice(0, 200) || `HTTP ${status}`);
}

/** One request: JSON in, JSON out; a 204 resolves to undefined. */
export function createSend(options: HttpOptions): Send {
  return async <T>(method: string, path: string, request: RequestOptions = {}): Promise<T> => {
    const url = buildUrl(options.baseUrl, path, request.query);
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': options.userAgent ?? 'cronsvc-client' };
    if (options.token && !request.anonymous) headers.Authorization = `Bearer ${options.token}`;
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new NetworkError(url, cause?.code ?? cause?.message ?? (error as Error).message);
    }
    const text = await response.text();
    if (!response.ok) throw errorFrom(response.status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}
