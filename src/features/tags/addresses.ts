import { ApiError, validationError } from '../../errors.js';
import { isShortId } from '../../lib/ids.js';

/**
 * What a chosen address may not be, whatever its case: a segment of the service's own routes
 * (a page at /t/docs, a tag named "batch" beside POST /v1/tags/batch) and the words people
 * would take for one. Addresses shorter than 3 characters are refused by their shape already.
 */
const RESERVED = new Set([
  'admin',
  'api',
  'app',
  'assets',
  'batch',
  'dashboard',
  'docs',
  'files',
  'healthz',
  'help',
  'login',
  'logout',
  'metrics',
  'openapi',
  'preview',
  'readyz',
  'signin',
  'signup',
  'static',
  'stats',
  'status',
  'support',
  'unlock',
  'www',
]);

/** Checks a chosen short id's shape and words; `field` names it in the error. */
export function checkChosenShortId(value: string, field: string): string {
  if (!isShortId(value)) {
    throw validationError(field, `${field} must be 3 to 64 characters of letters, digits, '-' and '_'`);
  }
  const folded = value.toLowerCase();
  // A tag's long id is accepted wherever a short id is: an address of that shape would be ambiguous.
  if (RESERVED.has(folded) || folded.startsWith('tag_')) {
    throw validationError(field, `${field} '${value}' is reserved by the service; choose another`);
  }
  return value;
}

export const shortIdTaken = (value: string, field: string) =>
  new ApiError('short_id_taken', `The address '${value}' is taken (addresses are unique ignoring case, and never reused)`, { field });
