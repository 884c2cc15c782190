import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import formbody from '@fastify/formbody';
import { parse as parseCookies } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import {
  changePassword,
  createFirstAccount,
  endSession,
  findSignedInUser,
  hasAnyUser,
  SESSION_ABSOLUTE_MS,
  SESSION_COOKIE,
  signUp,
  startSession,
  verifyCredentials,
  type SignedInUser,
} from '../features/sessions/index.js';
import { ApiError } from '../http/errors.js';
import type { RateLimitStore } from '../http/rate-limit/window.js';
import type { Clock } from '../lib/clock.js';
import { DASHBOARD_CSS, ICON_SVG } from './assets/dashboard.css.js';
import { DASHBOARD_JS } from './assets/dashboard.js.js';
import {
  cookieOptions,
  CSRF_COOKIE,
  csrfToken,
  csrfTokenMatches,
  isSameOrigin,
  newPreSessionValue,
  securityHeaders,
  setCookie,
} from './security.js';
import { SignInThrottle } from './throttle.js';
import { renderAccount } from './views/account.js';
import { CSRF_FIELD } from './views/forms.js';
import { renderHome } from './views/home.js';
import { renderMessage } from './views/message.js';
import { renderSetup, renderSignIn, renderSignUp } from './views/sign-in.js';

export interface DashboardContext {
  db: Db;
  clock: Clock;
  config: Config;
  /** The API's rate-limit store: sign-in throttling is shared by every instance when it is Redis. */
  rateLimitStore: RateLimitStore;
}

/** What the dashboard knows about a request once its cookies are read. */
interface DashboardRequestState {
  /** The signed-in user, or undefined: every page that needs one redirects to sign-in without it. */
  user: SignedInUser | undefined;
  /** The value the form token is bound to: the session token, else the pre-session cookie. */
  binding: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboard: DashboardRequestState;
  }
}

type Form = Record<string, unknown>;

/** A form field as text; absent or repeated fields count as empty. */
function field(body: unknown, name: string): string {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

const HTMX_FILE = createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js');
const FORM_BODY_LIMIT = 16 * 1024;
const TOO_MANY = (seconds: number) => `Too many attempts, try again in ${seconds} seconds.`;
const WRONG_CREDENTIALS = 'Incorrect email or password.';

/** A service's message as a sentence for the page: capitalised, with its full stop. */
function sentence(message: string): string {
  return message[0]!.toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return securityHeaders(reply).code(status).type('text/html; charset=utf-8').send(body);
}

/** After a successful POST: a GET of the next page, so reloading does not submit again. */
function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return securityHeaders(reply).redirect(location, 303);
}

/**
 * The dashboard under /dashboard: server-rendered pages, plain forms (htmx and dashboard.js only
 * enhance), sessions in the database.
 */
export function dashboardRoutes(context: DashboardContext) {
  const { db, clock, config } = context;
  const secure = config.publicBaseUrl.startsWith('https:');
  const publicOrigin = new URL(config.publicBaseUrl).origin;
  const throttle = new SignInThrottle(context.rateLimitStore, clock);
  const htmx = readFileSync(HTMX_FILE, 'utf8');
  // Accounts are never all removed, so once one exists the first-run check is over for good.
  let setUp = false;
  const isSetUp = async () => (setUp ||= await hasAnyUser(db));

  const csrf = (request: FastifyRequest) => (request.dashboard.binding ? csrfToken(config.secretKey, request.dashboard.binding) : '');
  const pageContext = (request: FastifyRequest) => ({ csrf: csrf(request), path: request.url.split('?')[0]! });

  async function signInAndRedirect(reply: FastifyReply, userId: string, location: string) {
    const { token } = await startSession(db, clock, userId);
    setCookie(reply, SESSION_COOKIE, token, cookieOptions(secure, SESSION_ABSOLUTE_MS / 1000));
    return seeOther(reply, location);
  }

  /** The messages of a failed account creation, by field. */
  function accountErrors(error: unknown): Record<string, string> | undefined {
    if (!(error instanceof ApiError) || error.code !== 'validation_error') return undefined;
    const name = error.details.field === 'email' ? 'email' : 'password';
    return { [name]: sentence(error.message) };
  }

  function newAccountInput(body: unknown) {
    const input = { email: field(body, 'email'), password: field(body, 'password') };
    const mismatch = input.password !== field(body, 'confirm') ? { confirm: 'The two passwords do not match.' } : undefined;
    return { input, mismatch };
  }

  return async (app: FastifyInstance) => {
    app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/dashboard', 302));

    // Assets need no session: registered beside the pages, outside their hooks.
    app.register(async (assets) => {
      const asset = (path: string, type: string, body: string) =>
        assets.get(path, { schema: { hide: true } }, (_request, reply) =>
          reply
            .type(`${type}; charset=utf-8`)
            .header('x-content-type-options', 'nosniff')
            .header('cache-control', 'public, max-age=3600')
            .send(body),
        );
      asset('/dashboard/assets/dashboard.css', 'text/css', DASHBOARD_CSS);
      asset('/dashboard/assets/dashboard.js', 'text/javascript', DASHBOARD_JS);
      asset('/dashboard/assets/htmx.min.js', 'text/javascript', htmx);
      asset('/dashboard/assets/icon.svg', 'image/svg+xml', ICON_SVG);
    });

    app.register(
      async (pages) => {
        await pages.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
        pages.decorateRequest('dashboard', null as unknown as DashboardRequestState);

        pages.addHook('onRequest', async (request, reply) => {
          const cookies = parseCookies(request.headers.cookie ?? '');
          const sessionToken = cookies[SESSION_COOKIE];
          const user = await findSignedInUser(db, clock, sessionToken);
          let binding = user ? sessionToken : cookies[CSRF_COOKIE];
          if (!binding && request.method === 'GET') {
            binding = newPreSessionValue();
            setCookie(reply, CSRF_COOKIE, binding, cookieOptions(secure));
          }
          request.dashboard = { user, binding };
        });

        // Every POST: same origin and the form token, checked before anything is read or changed.
        pages.addHook('preHandler', async (request, reply) => {
          if (request.method !== 'POST') return;
          const token = field(request.body, CSRF_FIELD) || request.headers['x-csrf-token'];
          if (isSameOrigin(request, publicOrigin) && csrfTokenMatches(config.secretKey, request.dashboard.binding, token)) return;
          return html(
            reply,
            403,
            renderMessage(
              csrf(request),
              'Request refused',
              'This form was expired or was sent from another site, so nothing was changed. Go back, reload the page and try again.',
            ),
          );
        });

        pages.setNotFoundHandler((request, reply) =>
          html(reply, 404, renderMessage(csrf(request), 'Page not found', 'There is no dashboard page at this address.')),
        );

        pages.setErrorHandler((error, request, reply) => {
          const status = error instanceof ApiError ? error.status : ((error as { statusCode?: number }).statusCode ?? 500);
          if (status >= 500) request.log.error({ err: error }, 'dashboard request failed');
          const text =
            status === 413 || status === 415 || status === 400
              ? 'The form could not be read. Go back and try again.'
              : 'Something went wrong on our side. Please try again in a moment.';
          return html(
            reply,
            status >= 400 ? status : 500,
            renderMessage(csrf(request), status < 500 ? 'Request not accepted' : 'Something went wrong', text),
          );
        });

        /** The signed-in user, or a redirect to sign-in (which offers the first-run setup while there is no account). */
        function requireUser(request: FastifyRequest, reply: FastifyReply): SignedInUser | undefined {
          if (request.dashboard.user) return request.dashboard.user;
          void seeOther(reply, '/dashboard/login');
          return undefined;
        }

        pages.get('/', { schema: { hide: true } }, async (request, reply) => {
          if (!(await isSetUp())) return html(reply, 200, renderSetup({ csrf: csrf(request) }));
          const user = requireUser(request, reply);
          if (!user) return reply;
          return html(reply, 200, renderHome({ ...pageContext(request), user }));
        });

        pages.get('/login', { schema: { hide: true } }, async (request, reply) => {
          if (!(await isSetUp())) return html(reply, 200, renderSetup({ csrf: csrf(request) }));
          if (request.dashboard.user) return seeOther(reply, '/dashboard');
          const notice = (request.query as Form).signed_out !== undefined ? 'You have been signed out.' : undefined;
          return html(reply, 200, renderSignIn({ csrf: csrf(request), signupOpen: config.signup === 'open', notice }));
        });

        pages.post('/login', { schema: { hide: true } }, async (request, reply) => {
          const email = field(request.body, 'email');
          const password = field(request.body, 'password');
          const form = { csrf: csrf(request), email, signupOpen: config.signup === 'open' };
          const retryAfter = await throttle.retryAfter(request.ip, email);
          if (retryAfter > 0) {
            reply.header('retry-after', String(retryAfter));
            return html(reply, 429, renderSignIn({ ...form, error: TOO_MANY(retryAfter) }));
          }
          const userId = await verifyCredentials(db, email, password);
          if (!userId) {
            await throttle.recordFailure(request.ip, email);
            return html(reply, 401, renderSignIn({ ...form, error: WRONG_CREDENTIALS }));
          }
          return signInAndRedirect(reply, userId, '/dashboard');
        });

        pages.post('/setup', { schema: { hide: true } }, async (request, reply) => {
          if (await isSetUp()) return seeOther(reply, '/dashboard/login');
          const { input, mismatch } = newAccountInput(request.body);
          const form = { csrf: csrf(request), email: input.email };
          if (mismatch) return html(reply, 400, renderSetup({ ...form, fieldErrors: mismatch }));
          try {
            const user = await createFirstAccount(db, clock, input);
            setUp = true;
            return await signInAndRedirect(reply, user.id, '/dashboard');
          } catch (error) {
            if (error instanceof ApiError && error.code === 'forbidden') return seeOther(reply, '/dashboard/login');
            const fieldErrors = accountErrors(error);
            if (!fieldErrors) throw error;
            return html(reply, 400, renderSetup({ ...form, fieldErrors }));
          }
        });

        // Sign-up exists only when SIGNUP=open; closed, its address is an unknown page.
        const signupClosed = (request: FastifyRequest, reply: FastifyReply) =>
          html(reply, 404, renderMessage(csrf(request), 'Page not found', 'There is no dashboard page at this address.'));

        pages.get('/signup', { schema: { hide: true } }, async (request, reply) => {
          if (config.signup !== 'open') return signupClosed(request, reply);
          if (request.dashboard.user) return seeOther(reply, '/dashboard');
          return html(reply, 200, renderSignUp({ csrf: csrf(request) }));
        });

        pages.post('/signup', { schema: { hide: true } }, async (request, reply) => {
          if (config.signup !== 'open') return signupClosed(request, reply);
          const { input, mismatch } = newAccountInput(request.body);
          const form = { csrf: csrf(request), email: input.email };
          if (mismatch) return html(reply, 400, renderSignUp({ ...form, fieldErrors: mismatch }));
          try {
            const user = await signUp(db, clock, { ...input, plan: config.signupPlan });
            setUp = true;
            return await signInAndRedirect(reply, user.id, '/dashboard');
          } catch (error) {
            const fieldErrors = accountErrors(error);
            if (!fieldErrors) throw error;
            return html(reply, 400, renderSignUp({ ...form, fieldErrors }));
          }
        });

        pages.post('/logout', { schema: { hide: true } }, async (request, reply) => {
          if (request.dashboard.user) await endSession(db, request.dashboard.user.sessionId);
          setCookie(reply, SESSION_COOKIE, '', cookieOptions(secure, 0));
          return seeOther(reply, '/dashboard/login?signed_out');
        });

        pages.get('/account', { schema: { hide: true } }, async (request, reply) => {
          const user = requireUser(request, reply);
          if (!user) return reply;
          const changed = (request.query as Form).password === 'changed';
          return html(reply, 200, renderAccount({ ...pageContext(request), user }, { changed }));
        });

        pages.post('/account/password', { schema: { hide: true } }, async (request, reply) => {
          const user = requireUser(request, reply);
          if (!user) return reply;
          const view = { ...pageContext(request), path: '/dashboard/account', user };
          const retryAfter = await throttle.retryAfter(request.ip, user.email);
          if (retryAfter > 0) {
            reply.header('retry-after', String(retryAfter));
            return html(reply, 429, renderAccount(view, { error: TOO_MANY(retryAfter) }));
          }
          const next = field(request.body, 'new_password');
          if (next !== field(request.body, 'confirm')) {
            return html(reply, 400, renderAccount(view, { fieldErrors: { confirm: 'The two passwords do not match.' } }));
          }
          try {
            await changePassword(db, clock, user, { current: field(request.body, 'current_password'), next });
          } catch (error) {
            if (!(error instanceof ApiError) || error.code !== 'validation_error' || !error.details.field) throw error;
            // A wrong current password is a guess like a failed sign-in, and throttled like one.
            if (error.details.field === 'current_password') await throttle.recordFailure(request.ip, user.email);
            return html(reply, 400, renderAccount(view, { fieldErrors: { [error.details.field]: sentence(error.message) } }));
          }
          return seeOther(reply, '/dashboard/account?password=changed');
        });
      },
      { prefix: '/dashboard' },
    );
  };
}
