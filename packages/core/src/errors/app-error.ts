export interface ErrorDetail {
  path: string;
  message: string;
}

/** HTTP status of every error code the API answers with (DECISIONS D3). */
export const errorStatus = {
  validation_failed: 400,
  invalid_json: 400,
  unauthorized: 401,
  not_found: 404,
  invalid_state: 409,
  conflict: 409,
  secret_in_use: 409,
  limit_exceeded: 409,
  already_decided: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** The one error type of the domain; the API turns it into the D3 envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = details;
  }

  static notFound(what: string): AppError {
    return new AppError('not_found', `${what} not found`);
  }

  static invalidState(message: string): AppError {
    return new AppError('invalid_state', message);
  }

  static validation(details: ErrorDetail[]): AppError {
    return new AppError('validation_failed', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
  }
}
