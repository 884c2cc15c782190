import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  checkNewAccount,
  createFirstAccount,
  isSignupOpen,
  SESSION_COOKIE,
  signOut,
  signUp,
  verifyCredentials,
} from '../../features/accounts/index.js';
import { ApiError } from '../../errors.js';
import { isMailConfigured } from '../../features/mail/index.js';
import { csrfFor, field, html, queryParam, seeOther, signInAndRedirect, submitForm, type Screen, type ScreenContext } from '../screen.js';
import { cookieOptions, setCookie } from '../security.js';
import { renderMessage } from '../components/message.js';
import { renderSetup, renderSignIn, renderSignUp } from './sign-in.js';
import { afterPassword } from './second-factor.routes.js';
import { TOO_MANY } from './throttle.js';

const WRONG_CREDENTIALS = 'Incorrect email or password.';
const DISABLED = 'This account is disabled. Ask the owner of this instance to enable it again.';

/** The fields of the account forms (setup, sign-up) a service's refusal can name. */
const ACCOUNT_FIELDS = ['email', 'password'];

/**
 * A new account's form (setup, sign-up) sent to `create`: every problem at once, the
 * confirmation's beside the service's (the email, the password rule); undefined once created.
 */
async function submitNewAccount<T>(
  context: ScreenContext,
  body: unknown,
  create: (input: { email: string; password: string }) => Promise<T>,
) {
  const input = { email: field(body, 'email'), password: field(body, 'password') };
  const own: Record<string, string> = input.password !== field(body, 'confirm') ? { confirm: 'The two passwords do not match.' } : {};
  return submitForm({ fields: ACCOUNT_FIELDS, own, check: () => checkNewAccount(context, input), save: () => create(input) });
}

/**
 * A signed-out browser on a signed-in page: sign in first, unless the route's config
 * `signedOut` asks otherwise (screen.ts).
 */
export async function signedOut(context: ScreenContext, request: FastifyRequest, reply: FastifyReply) {
  const instead = request.routeOptions.config.signedOut;
  if (instead === 'fragment') return html(reply, 401, '');
  if (instead === 'first-run' && !(await context.isSetUp())) return html(reply, 200, renderSetup({ csrf: csrfFor(context, request) }));
  return seeOther(reply, '/dashboard/login');
}

/** Sign-in, sign-out, the first-run setup and sign-up: the screens of a signed-out browser. */
export const signInScreens: Screen = (app, context) => {
  const { config, throttle } = context;

  app.get('/login', { schema: { hide: true } }, async (request, reply) => {
    if (!(await context.isSetUp())) return html(reply, 200, renderSetup({ csrf: csrfFor(context, request) }));
    if (request.dashboard.user) return seeOther(reply, '/dashboard');
    const notice = queryParam(request, 'signed_out') !== undefined ? 'You have been signed out.' : undefined;
    return html(reply, 200, renderSignIn({ csrf: csrfFor(context, request), signupOpen: await isSignupOpen(context), notice }));
  });

  app.post('/login', { schema: { hide: true } }, async (request, reply) => {
    const email = field(request.body, 'email');
    const password = field(request.body, 'password');
    const form = { csrf: csrfFor(context, request), email, signupOpen: await isSignupOpen(context) };
    const retryAfter = await throttle.retryAfter(request.ip, email);
    if (retryAfter > 0) {
      reply.header('retry-after', String(retryAfter));
      return html(reply, 429, renderSignIn({ ...form, error: TOO_MANY(retryAfter) }));
    }
    const account = await verifyCredentials(context, { email, password }, { requestId: request.id, ip: request.ip });
    if (!account) {
      await throttle.recordFailure(request.ip, email);
      return html(reply, 401, renderSignIn({ ...form, error: WRONG_CREDENTIALS }));
    }
    if (account.disabled) return html(reply, 403, renderSignIn({ ...form, error: DISABLED }));
    return afterPassword(context, request, reply, account.userId);
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    if (request.dashboard.user) await signOut(context, request.dashboard.user);
    setCookie(reply, SESSION_COOKIE, '', cookieOptions(context.secure, 0));
    return seeOther(reply, '/dashboard/login?signed_out');
  });

  app.post('/setup', { schema: { hide: true } }, async (request, reply) => {
    if (await context.isSetUp()) return seeOther(reply, '/dashboard/login');
    const form = { csrf: csrfFor(context, request), email: field(request.body, 'email') };
    try {
      const { saved: user, errors } = await submitNewAccount(context, request.body, (input) =>
        createFirstAccount(context, input, { requestId: request.id, ip: request.ip }),
      );
      if (errors) return html(reply, 400, renderSetup({ ...form, fieldErrors: errors }));
      context.markSetUp();
      return await signInAndRedirect(context, request, reply, user.id, '/dashboard');
    } catch (error) {
      if (error instanceof ApiError && error.code === 'forbidden') return seeOther(reply, '/dashboard/login');
      throw error;
    }
  });

  // Sign-up exists only while open (the owner's setting, else SIGNUP); closed, its address is an unknown page.
  const signupClosed = (request: FastifyRequest, reply: FastifyReply) =>
    html(reply, 404, renderMessage(csrfFor(context, request), 'Page not found', 'There is no dashboard page at this address.'));

  app.get('/signup', { schema: { hide: true } }, async (request, reply) => {
    if (!(await isSignupOpen(context))) return signupClosed(request, reply);
    if (request.dashboard.user) return seeOther(reply, '/dashboard');
    return html(reply, 200, renderSignUp({ csrf: csrfFor(context, request), mailConfigured: isMailConfigured(context) }));
  });

  app.post('/signup', { schema: { hide: true } }, async (request, reply) => {
    if (!(await isSignupOpen(context))) return signupClosed(request, reply);
    const form = { csrf: csrfFor(context, request), email: field(request.body, 'email') };
    const { saved: user, errors } = await submitNewAccount(context, request.body, (input) =>
      signUp(context, { ...input, plan: config.signupPlan }, { requestId: request.id, ip: request.ip }),
    );
    if (errors) return html(reply, 400, renderSignUp({ ...form, fieldErrors: errors, mailConfigured: isMailConfigured(context) }));
    context.markSetUp();
    return signInAndRedirect(context, request, reply, user.id, '/dashboard');
  });
};
