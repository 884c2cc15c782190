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

/** What is wrong with a chosen address of itself, whoever holds it: nothing, its shape or its word. */
export function addressFault(value: string): 'malformed' | 'reserved' | undefined {
  if (!isShortId(value)) return 'malformed';
  const folded = value.toLowerCase();
  // A tag's long id is accepted wherever a short id is: an address of that shape would be ambiguous.
  return RESERVED.has(folded) || folded.startsWith('tag_') ? 'reserved' : undefined;
}

/** Checks a chosen short id's shape and words; `field` names it in the error. */
export function checkChosenShortId(value: string, field: string): string {
  const fault = addressFault(value);
  if (fault === 'malformed') {
    throw validationError(field, `${field} must be 3 to 64 characters of letters, digits, '-' and '_'`);
  }
  if (fault === 'reserved') throw validationError(field, `${field} '${value}' is reserved by the service; choose another`);
  return value;
}

/**
 * Whether the addresses issued under a name (in any case) keep it from the tag `tagId`
 * (undefined: a tag not yet made): one is, or was, another tag's. A tag may take back its own.
 */
export const takenFrom = (issued: readonly { tag_id: string | null }[], tagId: string | undefined): boolean =>
  issued.some((address) => address.tag_id !== tagId);

export const shortIdTaken = (value: string, field: string) =>
  new ApiError('short_id_taken', `The address '${value}' is taken (addresses are unique ignoring case, and never reused)`, { field });
