import formbody from '@fastify/formbody';
import { parseCookie as parseCookies } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  actorOfUser,
  findSignedInUser,
  hasAnyUser,
  PENDING_SIGN_IN_COOKIE,
  SESSION_COOKIE,
  type Permission,
  type SignedInUser,
} from '../features/accounts/index.js';
import { ApiError, InsufficientStorage, isOutsideFault } from '../errors.js';
import { logOutsideFault } from '../http/error-handler.js';
import { fieldWithNul } from '../lib/text-fields.js';
import { assetRoutes } from './assets.js';
import type { ServiceContext } from '../context.js';
import {
  csrfFor,
  field,
  html,
  seeOther,
  sentence,
  signedInUser,
  type DashboardRequestState,
  type Screen,
  type ScreenContext,
} from './screen.js';
import { accountScreen } from './account/account.routes.js';
import { TWO_FACTOR_PATH, twoFactorScreen } from './account/two-factor.routes.js';
import { adminArea, adminScreen } from './admin/admin.routes.js';
import { filesScreen } from './files/files.routes.js';
import { foldersScreen } from './folders/folders.routes.js';
import { analyticsScreen } from './analytics/analytics.routes.js';
import { sharesScreen } from './analytics/shares.routes.js';
import { homeScreen } from './home/home.routes.js';
import { keysScreen } from './keys/keys.routes.js';
import { organizationsScreen } from './organizations/organizations.routes.js';
import { inviteAcceptScreen } from './organizations/invite-accept.routes.js';
import { signedOut, signInScreens } from './auth/sign-in.routes.js';
import { passwordResetScreens } from './auth/password-reset.routes.js';
import { secondFactorScreens } from './auth/second-factor.routes.js';
import { webhooksScreen } from './webhooks/webhooks.routes.js';
import { workspaceScreen } from './workspace/workspace.routes.js';
import { auditScreen } from './audit/audit.routes.js';
import { tagAddressScreen } from './tags/tag-address.routes.js';
import { tagEditorScreen } from './tags/tag-editor.routes.js';
import { tagsScreen } from './tags/tags.routes.js';
import { tagImportScreen } from './tags/tag-import.routes.js';
import { tagQrScreen } from './tags/tag-qr.routes.js';
import { cookieOptions, CSRF_COOKIE, csrfTokenMatches, isSameOrigin, newPreSessionValue, setCookie } from './security.js';
import { SignInThrottle } from './auth/throttle.js';
import { WORKSPACE_COOKIE, workspacesOf } from './workspace/workspaces.js';
import { CSRF_FIELD } from './components/forms.js';
import { renderMessage } from './components/message.js';

/** The screens of a signed-out browser: sign-in, sign-out, the first-run setup, sign-up and mailed links (invitations too). */
const PUBLIC_SCREENS: Screen[] = [signInScreens, secondFactorScreens, passwordResetScreens, inviteAcceptScreen];

/**
 * A screen only a workspace whose permissions hold `permission` reaches: to a member whose role
 * lacks it (an editor's webhooks), its pages answer 404 as pages that do not exist, before any
 * service is asked (which would refuse with 403).
 */
function needs(permission: Permission, screen: Screen): Screen {
  return (app, context) =>
    app.register(async (scope) => {
      scope.addHook('preHandler', async (request) => {
        if (!actorOfUser(signedInUser(request)).permissions.includes(permission)) throw new ApiError('not_found', 'Page not found');
      });
      screen(scope, context);
    });
}

/**
 * Every screen of a signed-in user; a new one is registered here and, when it has a page of its
 * own, in NAV_ITEMS (components/layout.tsx).
 */
const SIGNED_IN_SCREENS: Screen[] = [
  homeScreen,
  tagsScreen,
  tagAddressScreen,
  tagEditorScreen,
  filesScreen,
  foldersScreen,
  tagImportScreen,
  tagQrScreen,
  analyticsScreen,
  sharesScreen,
  needs('webhooks:read', webhooksScreen),
  keysScreen,
  organizationsScreen,
  auditScreen,
  accountScreen,
  twoFactorScreen,
  workspaceScreen,
];

const FORM_BODY_LIMIT = 16 * 1024;

/** Where a request's query or form holds a NUL, in words for the page (`The field “title”`), or undefined. */
function placeOfNul(request: FastifyRequest): string | undefined {
  const inQuery = fieldWithNul(request.query);
  if (inQuery !== undefined) return inQuery ? `The address parameter “${inQuery}”` : 'The address';
  const inForm = fieldWithNul(request.body);
  if (inForm !== undefined) return inForm ? `The field “${inForm}”` : 'The form';
  return undefined;
}

/**
 * The dashboard under /dashboard: server-rendered pages, plain forms (htmx and dashboard.js only
 * enhance), sessions in the database.
 */
export function dashboardRoutes(dashboard: ServiceContext) {
  const { clock, config } = dashboard;
  const publicOrigin = new URL(config.publicBaseUrl).origin;
  // Accounts are never all removed, so once one exists the first-run check is over for good.
  let setUp = false;
  const context: ScreenContext = {
    ...dashboard,
    throttle: new SignInThrottle(dashboard.limits, clock),
    secure: config.publicBaseUrl.startsWith('https:'),
    isSetUp: async () => (setUp ||= await hasAnyUser(dashboard)),
    markSetUp: () => {
      setUp = true;
    },
  };

  return async (app: FastifyInstance) => {
    app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/dashboard', 302));

    app.register(assetRoutes);

    app.register(
      async (pages) => {
        await pages.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
        pages.decorateRequest('dashboard', null as unknown as DashboardRequestState);

        pages.addHook('onRequest', async (request, reply) => {
          const cookies = parseCookies(request.headers.cookie ?? '');
          const sessionToken = cookies[SESSION_COOKIE];
          const user = await findSignedInUser(dashboard, sessionToken);
          if (user) user.origin = { requestId: request.id, ip: request.ip };
          let binding = user ? sessionToken : cookies[CSRF_COOKIE];
          if (!binding && request.method === 'GET') {
            binding = newPreSessionValue();
            setCookie(reply, CSRF_COOKIE, binding, cookieOptions(context.secure));
          }
          request.dashboard = { user, binding, workspaceCookie: cookies[WORKSPACE_COOKIE], pendingSignIn: cookies[PENDING_SIGN_IN_COOKIE] };
        });

        // Every POST: same origin and the form token, checked before anything is read or changed.
        pages.addHook('preHandler', async (request, reply) => {
          if (request.method !== 'POST') return;
          const token = field(request.body, CSRF_FIELD) || request.headers['x-csrf-token'];
          const sameOrigin = isSameOrigin(request, publicOrigin);
          if (sameOrigin && csrfTokenMatches(config.secretKey, request.dashboard.binding, token)) return;
          // A streamed upload form's token is a part of its body, not read yet: the route checks
          // it before the file is read (screen.ts tokenInUpload).
          if (sameOrigin && token === undefined && request.routeOptions.config.tokenInUpload) return;
          return html(
            reply,
            403,
            renderMessage(
              csrfFor(context, request),
              'Request refused',
              'This form was expired or was sent from another site, so nothing was changed. Go back, reload the page and try again.',
            ),
          );
        });

        // No field takes NUL: PostgreSQL refuses it in text (a 500), SQLite would keep it for a
        // page to echo. Refused after the CSRF check, before any handler reads the form or the
        // query, naming the field but never echoing the value. A streamed upload's parts are not
        // parsed yet: its text parts (name, description, the file's name) are refused with any
        // control character by the files feature's upload path, and its form token is only compared.
        pages.addHook('preHandler', async (request, reply) => {
          const place = placeOfNul(request);
          if (place === undefined) return;
          const text = `${place} holds a NUL character, which no field takes, so nothing was changed. Go back, remove it and try again.`;
          return html(reply, 400, renderMessage(csrfFor(context, request), 'Request not accepted', text));
        });

        const notFoundPage = (request: FastifyRequest, reply: FastifyReply) =>
          html(reply, 404, renderMessage(csrfFor(context, request), 'Page not found', 'There is no dashboard page at this address.'));
        pages.setNotFoundHandler(notFoundPage);

        pages.setErrorHandler((error, request, reply) => {
          // Another user's key or organization answers exactly as one that does not exist.
          if (error instanceof ApiError && error.code === 'not_found') return notFoundPage(request, reply);
          if (error instanceof ApiError && error.code === 'forbidden') {
            return html(reply, 403, renderMessage(csrfFor(context, request), 'Not allowed', sentence(error.message)));
          }
          const csrf = request.dashboard ? csrfFor(context, request) : '';
          if (isOutsideFault(error)) {
            logOutsideFault(request.log, error);
            if (error.details.retryAfter !== undefined) reply.header('retry-after', String(error.details.retryAfter));
            const [title, text] =
              error instanceof InsufficientStorage
                ? [
                    'Out of storage space',
                    'The server has no storage space left, so nothing was saved. Try again once space has been freed.',
                  ]
                : [
                    'Temporarily unavailable',
                    'The service cannot reach what it depends on right now, so nothing was changed. Try again in a few seconds.',
                  ];
            return html(reply, error.status, renderMessage(csrf, title, text));
          }
          const status = error instanceof ApiError ? error.status : ((error as { statusCode?: number }).statusCode ?? 500);
          if (status >= 500) request.log.error({ err: error }, 'dashboard request failed');
          const text =
            status < 500
              ? 'The form could not be read. Go back and try again.'
              : 'Something went wrong on our side. Please try again in a moment.';
          const title = status < 500 ? 'Request not accepted' : 'Something went wrong';
          return html(reply, status >= 400 ? status : 500, renderMessage(csrf, title, text));
        });

        for (const screen of PUBLIC_SCREENS) screen(pages, context);

        /**
         * A scope of signed-in pages. Its hook runs after the checks above: a browser without a
         * session, or a user the scope does not `admit`, is turned away before any work; for the
         * others the user's workspaces are read once, for the handler, the layout's bar and the actor.
         */
        const signedInScope =
          (
            screens: Screen[],
            turnAway: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
            admits = (_user: SignedInUser) => true,
          ) =>
          async (scope: FastifyInstance) => {
            scope.addHook('preHandler', async (request, reply) => {
              const { user } = request.dashboard;
              if (!user || !admits(user)) return turnAway(request, reply);
              // The owner requires two factors: a user without a second one sets it up before anything else.
              if (user.mustEnrol && !request.url.startsWith(TWO_FACTOR_PATH)) return seeOther(reply, TWO_FACTOR_PATH);
              const workspaces = await workspacesOf(dashboard, user, request.dashboard.workspaceCookie);
              user.workspace = workspaces.current;
              request.dashboard.workspaces = workspaces;
            });
            for (const screen of screens) screen(scope, context);
          };

        pages.register(signedInScope(SIGNED_IN_SCREENS, (request, reply) => signedOut(context, request, reply)));
        pages.register(signedInScope([adminScreen], adminArea.turnAway, adminArea.admits));
      },
      { prefix: '/dashboard' },
    );
  };
}
