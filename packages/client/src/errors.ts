import type { ErrorDetail } from '@cronsvc/contracts';

/** The API answered with its error envelope (or a non-2xx without one). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** No answer at all: connection refused, DNS, TLS, a timeout. */
export class NetworkError extends Error {
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}
