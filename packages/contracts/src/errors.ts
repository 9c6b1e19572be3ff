/** HTTP status of every error code the API answers with. */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  conflict: 409,
  secret_in_use: 409,
  limit_exceeded: 409,
  already_decided: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** One problem with a request: `path` names the field (dotted), `message` says what is wrong. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** Every error answer: details only when there is something field by field to say. */
export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
  };
}
