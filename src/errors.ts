/**
 * The one error contract: every failure becomes an ApiError, whose code decides the HTTP
 * status through STATUS_BY_CODE, and is rendered in one place (error-handler.ts).
 */
export const STATUS_BY_CODE = {
  validation_error: 400,
  invalid_request: 400,
  invalid_date_range: 400,
  invalid_url: 400,
  file_too_large: 400,
  unauthorized: 401,
  webhook_limit_reached: 402,
  forbidden: 403,
  analytics_not_enabled: 403,
  not_found: 404,
  idempotency_key_in_use: 409,
  unsupported_media_type: 415,
  unsupported_file_type: 415,
  range_not_satisfiable: 416,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
  storage_limit_exceeded: 507,
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export interface ErrorDetails {
  /** The offending input, e.g. `title` or `content[3].level`. */
  field?: string;
  /** Seconds to wait before retrying (429). */
  retryAfter?: number;
}

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.status = STATUS_BY_CODE[code];
  }
}

export const validationError = (field: string, message: string) => new ApiError('validation_error', message, { field });
/** A field the input may not carry: usually a typo, so it is named as sent (`titel`). */
export const unknownField = (field: string) => validationError(field, `unknown field '${field}'`);
export const invalidRequest = (message: string) => new ApiError('invalid_request', message);
export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const forbidden = (message: string) => new ApiError('forbidden', message);
export const unauthorized = (message: string) => new ApiError('unauthorized', message);
