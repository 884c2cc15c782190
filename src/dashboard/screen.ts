import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ApiError, problemsOf } from '../errors.js';
import { endSession, SESSION_ABSOLUTE_MS, SESSION_COOKIE, startSession, type SignedInUser } from '../features/accounts/index.js';
import { cookieOptions, csrfToken, csrfTokenMatches, securityHeaders, setCookie } from './security.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import type { SignInThrottle } from './auth/throttle.js';
import type { PageContext } from './components/layout.js';
import type { Workspaces } from './workspace/workspaces.js';

/**
 * What every screen of the dashboard builds on. A screen is a function that registers its
 * routes (paths relative to /dashboard) on one of the dashboard's scopes (routes.ts), where the
 * session and CSRF hooks already ran: a POST handler runs only for a same-origin request with
 * this browser's form token. In the signed-in scope a handler runs only for a signed-in user
 * (`signedInUser`), whose workspaces are read.
 */
export type Screen = (app: FastifyInstance, context: ScreenContext) => void;

export interface ScreenContext extends ServiceContext {
  throttle: SignInThrottle;
  /** Whether cookies get Secure (PUBLIC_BASE_URL is https). */
  secure: boolean;
  /** Whether any account exists; until one does, the dashboard offers the first-run setup. */
  isSetUp(): Promise<boolean>;
  markSetUp(): void;
}

/** What the dashboard knows about a request once its cookies are read. */
export interface DashboardRequestState {
  /** The signed-in user, or undefined: pages that need one redirect to sign-in without it. */
  user: SignedInUser | undefined;
  /** The value the form token is bound to: the session token, else the pre-session cookie. */
  binding: string | undefined;
  /** The workspace cookie's value: the choice the signed-in scope checks against the user's organizations. */
  workspaceCookie: string | undefined;
  /** The token of a sign-in waiting for its second factor (its own cookie), if any. */
  pendingSignIn: string | undefined;
  /** On a signed-in page, the user's workspaces and the one chosen (also set as `user.workspace`). */
  workspaces?: Workspaces;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboard: DashboardRequestState;
  }
  interface FastifyContextConfig {
    /**
     * A streamed multipart upload: a same-origin POST without the x-csrf-token header reaches
     * the handler, which must check the form's token part with `formTokenMatches` before it
     * reads the file (the body is not parsed before the handler).
     */
    tokenInUpload?: boolean;
    /**
     * What a signed-out browser gets from this signed-in page instead of a redirect to sign-in:
     * `first-run`, the first-run setup while no account exists (home); `fragment`, an empty 401
     * (a fragment htmx polls, which must not swap the sign-in page into the card).
     */
    signedOut?: 'first-run' | 'fragment';
  }
}

/** This browser's form token, for the forms and htmx requests of the page being rendered. */
export function csrfFor(context: ScreenContext, request: FastifyRequest): string {
  return request.dashboard.binding ? csrfToken(context.config.secretKey, request.dashboard.binding) : '';
}

/** Whether `token` is this browser's form token. */
export function formTokenMatches(context: ScreenContext, request: FastifyRequest, token: unknown): boolean {
  return csrfTokenMatches(context.config.secretKey, request.dashboard.binding, token);
}

/** What the layout needs: the form token and the path (the current nav item). */
export function pageContext(context: ScreenContext, request: FastifyRequest): PageContext {
  return { csrf: csrfFor(context, request), path: request.url.split('?')[0]!, workspaces: request.dashboard.workspaces };
}

/** A form field as text; absent or repeated fields count as empty. */
export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A repeated form field (checkboxes) as a list of texts; one value gives a list of one. */
export function fields(body: unknown, name: string): string[] {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  const values = Array.isArray(value) ? value : [value];
  return values.filter((item): item is string => typeof item === 'string');
}

/**
 * Whether a destructive form was confirmed: dashboard.js sets `confirmed` once the person
 * accepted the browser's prompt; without scripts the screen answers with a confirmation page
 * whose form carries it.
 */
export function isConfirmed(body: unknown): boolean {
  return field(body, 'confirmed') === 'yes';
}

/** A query parameter as text, or undefined. */
export function queryParam(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** Far beyond any list's last page, and small enough that page × size stays an exact offset. */
const MAX_PAGE = 1_000_000;

/** The `page` query parameter of a paged list: a whole number from 1 (huge ones clamped), else 1. */
export function pageParam(request: FastifyRequest): number {
  const page = Math.floor(Number(queryParam(request, 'page') ?? 1));
  return Number.isFinite(page) ? Math.min(Math.max(1, page), MAX_PAGE) : 1;
}

/**
 * How a form names a service's refusals: the field names both share, the service's names → the
 * form's, or a function giving one refusal's messages on the form (undefined: not the form's).
 */
export type FormFields = readonly string[] | Readonly<Record<string, string>> | ((problem: ApiError) => Record<string, string> | undefined);

/**
 * The one mapping from a service's refusal to a form's messages: every refusal it carries (a
 * service checks all of an input's fields at once, checkFields) that names one of the form's
 * `fields` becomes that field's message, as a sentence; the first for a field is kept. Undefined
 * when none does (another code, fields the form does not have): not the form's fault, so the
 * caller lets the error go on up to the error page.
 */
export function fieldErrors(error: unknown, fields: FormFields): Record<string, string> | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const errors: Record<string, string> = {};
  for (const problem of problemsOf(error)) {
    for (const [name, message] of Object.entries(messagesOf(problem, fields) ?? {})) errors[name] ??= message;
  }
  return Object.keys(errors).length > 0 ? errors : undefined;
}

function messagesOf(problem: ApiError, fields: FormFields): Record<string, string> | undefined {
  if (typeof fields === 'function') return fields(problem);
  const name = problem.code === 'validation_error' ? problem.details.field : undefined;
  if (name === undefined) return undefined;
  const formName = isList(fields) ? (fields.includes(name) ? name : undefined) : Object.hasOwn(fields, name) ? fields[name] : undefined;
  return formName ? { [formName]: sentence(problem.message) } : undefined;
}

const isList = (fields: FormFields): fields is readonly string[] => Array.isArray(fields);

/** What a form's submission came to: saved (the service's answer), or every problem's message by field. */
export type Submitted<T> = { saved: T; errors?: undefined } | { saved?: undefined; errors: Record<string, string> };

/**
 * A form's submission, with every problem reported at once, not one per attempt. `own` are the
 * form's own problems, of what the service never sees (a password's confirmation, a choice the
 * form did not offer): with any, nothing is saved, and `check`, the service's checks of the
 * same input (they write nothing), adds the service's problems beside them. Otherwise `save`
 * runs, and its refusals of the form's fields come back (fieldErrors); any other error goes on
 * up to the error page.
 */
export async function submitForm<T>(form: {
  fields: FormFields;
  own?: Record<string, string>;
  check?: () => Promise<unknown>;
  save: () => Promise<T>;
}): Promise<Submitted<T>> {
  const { fields, own = {}, check, save } = form;
  if (Object.keys(own).length === 0) return attempt(save, fields);
  const checked = check ? await attempt(check, fields) : undefined;
  return { errors: { ...checked?.errors, ...own } };
}

async function attempt<T>(run: () => Promise<T>, fields: FormFields): Promise<Submitted<T>> {
  try {
    return { saved: await run() };
  } catch (error) {
    const errors = fieldErrors(error, fields);
    if (!errors) throw error;
    return { errors };
  }
}

/** A service's message as a sentence for the page: capitalised, with its full stop. */
export function sentence(message: string): string {
  return message[0]!.toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
}

export function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return securityHeaders(reply).code(status).type('text/html; charset=utf-8').send(body);
}

/** After a successful POST: a GET of the next page, so reloading does not submit again. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return securityHeaders(reply).redirect(location, 303);
}

/**
 * The signed-in user of a page in the signed-in scope (routes.ts), whose hook has answered
 * every request without one before the handler runs.
 */
export function signedInUser(request: FastifyRequest): SignedInUser {
  const { user } = request.dashboard;
  if (!user) throw new Error(`${request.url} is not in the dashboard's signed-in scope`);
  return user;
}

/**
 * Starts a new session for the user (a new token, whatever the browser had; a session the
 * browser was still signed in with ends) and goes on to `location`.
 */
export async function signInAndRedirect(
  context: ScreenContext,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  location: string,
) {
  if (request.dashboard.user) await endSession(context, request.dashboard.user.sessionId);
  const { token } = await startSession(context, userId, { requestId: request.id, ip: request.ip });
  setCookie(reply, SESSION_COOKIE, token, cookieOptions(context.secure, SESSION_ABSOLUTE_MS / 1000));
  return seeOther(reply, location);
}

/**
 * A read of one record as the user. The services answer 403 for a record of another account
 * (an API key learns it exists); the dashboard answers exactly as for one that does not exist.
 * A function, so a refusal thrown before any promise (a cached record) is caught too.
 */
export async function readOwn<T>(read: () => MaybePromise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'forbidden') throw new ApiError('not_found', error.message);
    throw error;
  }
}
