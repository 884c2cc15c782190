import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  completeSignInWithCode,
  findPendingSignIn,
  isSignupOpen,
  passkeySignInOptions,
  PENDING_SIGN_IN_COOKIE,
  PENDING_SIGN_IN_MS,
  secondFactorsOf,
  startPendingSignIn,
  takePendingSignIn,
  verifyPasskeySignIn,
  type PendingSignIn,
} from '../../features/accounts/index.js';
import { csrfFor, field, html, seeOther, signInAndRedirect, type Screen, type ScreenContext } from '../screen.js';
import { cookieOptions, securityHeaders, setCookie } from '../security.js';
import { renderSecondFactor, renderSignIn } from './sign-in.js';
import { TOO_MANY } from './throttle.js';

const SECOND_FACTOR_PATH = '/dashboard/login/second-factor';
const WRONG_CODE = 'That code is not right. Try the code your app shows now.';
const WRONG_RECOVERY_CODE = 'That recovery code is not right, or was used already.';
const PASSKEY_FAILED = 'The passkey could not be verified. Try again, or use another way.';
const START_AGAIN = 'Too many wrong codes, or the sign-in took too long. Sign in again.';

/**
 * After the right password: straight in when the user has no second factor; otherwise a
 * pending sign-in (its own short-lived cookie, nothing signed in yet) and the second step.
 */
export async function afterPassword(context: ScreenContext, request: FastifyRequest, reply: FastifyReply, userId: string) {
  const { totp, passkeys } = await secondFactorsOf(context, userId);
  if (!totp && passkeys === 0) return signInAndRedirect(context, request, reply, userId, '/dashboard');
  const { token } = await startPendingSignIn(context, userId);
  setCookie(reply, PENDING_SIGN_IN_COOKIE, token, cookieOptions(context.secure, PENDING_SIGN_IN_MS / 1000));
  return seeOther(reply, SECOND_FACTOR_PATH);
}

const pendingToken = (request: FastifyRequest) => request.dashboard.pendingSignIn;

/** The second factor given: the pending sign-in's cookie goes, a session starts. */
function finish(context: ScreenContext, request: FastifyRequest, reply: FastifyReply, userId: string) {
  setCookie(reply, PENDING_SIGN_IN_COOKIE, '', cookieOptions(context.secure, 0));
  return signInAndRedirect(context, request, reply, userId, '/dashboard');
}

/** A pending sign-in that ended (too many wrong codes, too late, a race lost): back to the password. */
async function startAgain(context: ScreenContext, request: FastifyRequest, reply: FastifyReply) {
  setCookie(reply, PENDING_SIGN_IN_COOKIE, '', cookieOptions(context.secure, 0));
  return html(reply, 401, renderSignIn({ csrf: csrfFor(context, request), signupOpen: await isSignupOpen(context), error: START_AGAIN }));
}

/** The second step of a password sign-in, and the passkey sign-ins (second factor, or passwordless). */
export const secondFactorScreens: Screen = (app, context) => {
  const { throttle } = context;
  const view = (request: FastifyRequest, pending: PendingSignIn) => ({
    csrf: csrfFor(context, request),
    email: pending.email,
    totp: pending.totp,
    passkeys: pending.passkeys,
  });

  app.get('/login/second-factor', { schema: { hide: true } }, async (request, reply) => {
    const pending = await findPendingSignIn(context, pendingToken(request));
    if (!pending) return seeOther(reply, '/dashboard/login');
    return html(reply, 200, renderSecondFactor(view(request, pending)));
  });

  // A code from the authenticator app, or a recovery code: guesses are throttled like passwords
  // (per address and account), and a pending sign-in takes only a few before it ends.
  app.post('/login/second-factor', { schema: { hide: true } }, async (request, reply) => {
    const token = pendingToken(request);
    const pending = await findPendingSignIn(context, token);
    if (!token || !pending) return startAgain(context, request, reply);
    const retryAfter = await throttle.retryAfter(request.ip, pending.email);
    if (retryAfter > 0) {
      reply.header('retry-after', String(retryAfter));
      return html(reply, 429, renderSecondFactor({ ...view(request, pending), error: TOO_MANY(retryAfter) }));
    }
    const recovery = field(request.body, 'recovery_code');
    const code = recovery || field(request.body, 'code');
    const outcome = await completeSignInWithCode(context, token, { code, origin: { requestId: request.id, ip: request.ip } });
    if ('userId' in outcome) return finish(context, request, reply, outcome.userId);
    await throttle.recordFailure(request.ip, pending.email);
    if (!outcome.canRetry) return startAgain(context, request, reply);
    const fieldErrors: Record<string, string> = recovery ? { recovery_code: WRONG_RECOVERY_CODE } : { code: WRONG_CODE };
    return html(reply, 401, renderSecondFactor({ ...view(request, pending), fieldErrors }));
  });

  /** The options of a passkey ceremony, as JSON for passkeys.client.js. */
  const sendOptions = (reply: FastifyReply, options: unknown) => securityHeaders(reply).type('application/json').send(options);

  app.post('/login/second-factor/passkey/options', { schema: { hide: true } }, async (request, reply) => {
    const pending = await findPendingSignIn(context, pendingToken(request));
    if (!pending) return securityHeaders(reply).code(401).send({ error: START_AGAIN });
    return sendOptions(reply, await passkeySignInOptions(context, request.dashboard.binding!, pending.userId));
  });

  app.post('/login/second-factor/passkey', { schema: { hide: true } }, async (request, reply) => {
    const token = pendingToken(request);
    const pending = await findPendingSignIn(context, token);
    if (!token || !pending) return startAgain(context, request, reply);
    const userId = await verifyPasskeySignIn(context, request.dashboard.binding!, pending.userId, {
      response: field(request.body, 'response'),
    });
    if (!userId) return html(reply, 401, renderSecondFactor({ ...view(request, pending), error: PASSKEY_FAILED }));
    if (!(await takePendingSignIn(context, token))) return startAgain(context, request, reply);
    return finish(context, request, reply, userId);
  });

  app.post('/login/passkey/options', { schema: { hide: true } }, async (request, reply) =>
    sendOptions(reply, await passkeySignInOptions(context, request.dashboard.binding!, undefined)),
  );

  // Passwordless: a passkey verified by its device (PIN or biometrics) is both factors.
  app.post('/login/passkey', { schema: { hide: true } }, async (request, reply) => {
    const userId = await verifyPasskeySignIn(context, request.dashboard.binding!, undefined, { response: field(request.body, 'response') });
    if (userId) return finish(context, request, reply, userId);
    return html(
      reply,
      401,
      renderSignIn({ csrf: csrfFor(context, request), signupOpen: await isSignupOpen(context), error: PASSKEY_FAILED }),
    );
  });
};
