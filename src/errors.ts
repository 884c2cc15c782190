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
  short_id_taken: 409,
  unsupported_media_type: 415,
  unsupported_file_type: 415,
  request_timeout: 408,
  range_not_satisfiable: 416,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
  storage_limit_exceeded: 507,
  insufficient_storage: 507,
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

/**
 * The refusals of several fields of one input, found together (checkFields), so a form can show
 * each under its field. The first leads: its code, message and field are this error's own, so
 * the API, which answers one error, answers what it did when checks stopped at the first.
 */
export class InputProblems extends ApiError {
  constructor(readonly problems: readonly [ApiError, ...ApiError[]]) {
    super(problems[0].code, problems[0].message, problems[0].details);
  }
}

/** The refusals an error carries: each of an InputProblems, else the error itself. */
export const problemsOf = (error: ApiError): readonly ApiError[] => (error instanceof InputProblems ? error.problems : [error]);

/** Whether `error` refuses a field of the input (a validation error, an invalid URL…), not the request as a whole. */
const refusesField = (error: unknown): error is ApiError => error instanceof ApiError && error.details.field !== undefined;

/** Whether `error` refuses the request as a whole (not found, forbidden, a limit): a 4xx, not a fault of the server. */
const refusesRequest = (error: unknown): error is ApiError => error instanceof ApiError && error.status < 500;

type CheckedValues<T extends Record<string, () => unknown>> = { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };

/**
 * Runs each field's check in order and answers their values by the same names. A check that
 * refuses its field does not stop the others: every refusal is thrown together at the end
 * (InputProblems). A refusal of the request as a whole (not found, forbidden) ends the checks:
 * thrown as it is, unless a field was refused before it, which then leads as it always did. Any
 * other error (a bug, an outage) is thrown at once, whatever was refused before it.
 */
export async function checkFields<T extends Record<string, () => unknown>>(checks: T): Promise<CheckedValues<T>> {
  const values: Record<string, unknown> = {};
  const problems: ApiError[] = [];
  for (const [name, check] of Object.entries(checks)) {
    try {
      values[name] = await check();
    } catch (error) {
      if (refusesField(error)) {
        problems.push(...problemsOf(error));
        continue;
      }
      if (refusesRequest(error) && problems.length > 0) break;
      throw error;
    }
  }
  const [first, ...rest] = problems;
  if (first) throw new InputProblems([first, ...rest]);
  return values as CheckedValues<T>;
}

/** A field's check for checkFields that runs only when the field was given (undefined: left out). */
export const whenGiven =
  <T, R>(value: T | undefined, check: (value: T) => R) =>
  (): R | undefined =>
    value === undefined ? undefined : check(value);

/** What the service depends on, as a log line and a message name it. */
export type Dependency = 'database' | 'redis';

const DEPENDENCY_NAMES: Record<Dependency, string> = { database: 'The database', redis: 'Redis' };

/** Seconds a client is told to wait when a dependency is down: reconnection is tried every second. */
export const DEPENDENCY_RETRY_AFTER = 2;

/**
 * A dependency that is down, frozen or refusing connections: 503 with Retry-After, and one log
 * line naming the dependency and the cause (never a stack: the fault is outside this process).
 */
export class DependencyUnavailable extends ApiError {
  constructor(
    readonly dependency: Dependency,
    /** What the driver said, for the log only. */
    readonly reason: string,
  ) {
    super('service_unavailable', `${DEPENDENCY_NAMES[dependency]} is not reachable right now; retry shortly`, {
      retryAfter: DEPENDENCY_RETRY_AFTER,
    });
  }
}

/**
 * The disk (or the database server's disk) is full: 507, and one log line. Nothing was written;
 * the same request succeeds once space is freed.
 */
export class InsufficientStorage extends ApiError {
  constructor(
    readonly where: Dependency | 'disk',
    readonly reason: string,
  ) {
    super('insufficient_storage', 'The server has no storage space left; nothing was saved. Retry later');
  }
}

/** The driver's own words for a failure, without a stack: `ECONNREFUSED`, `SQLITE_FULL: database or disk is full`. */
export function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** A failure outside the process (a dependency, the disk), which is logged as one line without a stack. */
export const isOutsideFault = (error: unknown): error is DependencyUnavailable | InsufficientStorage =>
  error instanceof DependencyUnavailable || error instanceof InsufficientStorage;

const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** A write refused for want of space: the file system (ENOSPC, EDQUOT), SQLite or PostgreSQL (disk_full). */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DISK_FULL_CODES.has(code);
}

/**
 * What a log line says of a failure: for a fault outside the process (a dependency, the disk),
 * what and why in one line, since its stack says nothing of the cause; for anything else the
 * error with its stack, as a bug needs.
 */
export function failureFields(error: unknown): Record<string, unknown> {
  if (error instanceof DependencyUnavailable) return { dependency: error.dependency, reason: error.reason };
  if (error instanceof InsufficientStorage) return { where: error.where, reason: error.reason };
  return { err: error };
}
