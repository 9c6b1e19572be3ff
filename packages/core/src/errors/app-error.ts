import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '@cronsvc/contracts';

export type { ErrorCode, ErrorDetail };

/** The one error type of the domain; the API turns it into the error envelope (docs/API.md, "Conventions"). */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
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
