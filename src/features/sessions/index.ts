/**
 * Dashboard sign-in and sessions. The dashboard, the public pages and the command line use
 * only what this file exports.
 */
export {
  ALREADY_SET_UP,
  changePassword,
  createFirstAccount,
  endSession,
  findSignedInUser,
  hasAnyUser,
  mayReadTag,
  mayReadTagPage,
  sessionTokenFromCookies,
  SESSION_ABSOLUTE_MS,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  setPassword,
  signUp,
  startSession,
  verifyCredentials,
  type ReadableTag,
  type SignedInUser,
} from './sessions.service.js';
