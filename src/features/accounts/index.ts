/** Users, organizations, plans and API keys: what other features and the front doors may use. */
export * from './accounts.service.js';
export * from './actor.js';
export {
  getAnyUser,
  instanceSummary,
  isSignupOpen,
  isTwoFactorRequired,
  listAllOrganizations,
  listAllUsers,
  setSignupOpen,
  setTwoFactorRequired,
  setUserDisabled,
  setUserPlan,
  type AdminUserView,
} from './instance-admin.service.js';
export { isEmailVerified, linkState, resendEmailVerification, verifyEmail, type LinkState } from './account-tokens.js';
export {
  acceptInvite,
  acceptInviteOfUser,
  INVITE_LIFETIME_MS,
  INVITE_PATH,
  invitesForUser,
  inviteMember,
  listInvites,
  openInvite,
  revokeInvite,
  type InviteState,
  type InviteView,
} from './invites.service.js';
export { actorOfKey, recordKeyUse } from './key-auth.js';
export { requestPasswordReset, resetPassword } from './password-reset.js';
export {
  addPasskey,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  removePasskey,
  verifyPasskeySignIn,
  type PasskeyAdded,
} from './passkeys.service.js';
export {
  beginTotpEnrolment,
  completeSignInWithCode,
  confirmTotp,
  disableTotp,
  findPendingSignIn,
  PENDING_SIGN_IN_COOKIE,
  PENDING_SIGN_IN_MS,
  regenerateRecoveryCodes,
  resealTotpSecrets,
  resetTwoFactor,
  secondFactorsOf,
  startPendingSignIn,
  takePendingSignIn,
  totpEnrolment,
  twoFactorStatus,
  type PasskeyView,
  type PendingSignIn,
  type TotpEnrolment,
  type TwoFactorStatus,
} from './two-factor.service.js';
export {
  administers,
  GIVEN_ROLES,
  isPermission,
  ORG_ROLES,
  PERMISSIONS,
  requireChangeRights,
  requirePermission,
  ROLE_PERMISSIONS,
  type Permission,
} from './permissions.js';
export { ENDPOINT_LIMITS_PER_MINUTE, isPlan, PLAN_LIMITS, PLANS, type Plan, type PlanLimits } from './plans.js';
export { countCreatedInScope, inScope, isInScope, requireAccess, scopeOf, type Scope } from './scope.js';
export {
  ALREADY_SET_UP,
  changePassword,
  checkPasswordChange,
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
  setTimeZone,
  signOut,
  signUp,
  startSession,
  verifyCredentials,
  type ReadableTag,
  type SignedInUser,
} from './sessions.js';
