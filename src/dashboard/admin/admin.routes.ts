import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  actorOfUser,
  getAnyUser,
  instanceSummary,
  listAllOrganizations,
  listAllUsers,
  setSignupOpen,
  setTwoFactorRequired,
  setUserDisabled,
  setUserPlan,
  type SignedInUser,
} from '../../features/accounts/index.js';
import { ApiError, notFound, validationError } from '../../errors.js';
import { field, html, isConfirmed, pageContext, pageParam, queryParam, seeOther, sentence, signedInUser, type Screen } from '../screen.js';
import {
  adminUserAction,
  adminUsersPath,
  renderAdminOrganizations,
  renderAdminOverview,
  renderAdminUsers,
  type AdminUsersPage,
} from './admin.js';
import { askFirst } from '../components/ask-first.js';

/** Rows per page of the lists: a page stays quick to render whatever the instance holds. */
const PER_PAGE = 50;
/** Longer than any email: a longer search cannot match, and is not worth sending to the database. */
const MAX_SEARCH = 254;

type UserParams = { Params: { id: string } };

const USER_NOTICES: Record<string, string> = {
  disabled: 'User disabled. They were signed out, cannot sign in, and their API keys are refused.',
  enabled: 'User enabled. They can sign in and use their API keys again.',
  plan: 'Plan changed. It applies from their next request.',
};

const OVERVIEW_NOTICES: Record<string, string> = {
  opened: 'Sign-up is open: anyone can create an account.',
  closed: 'Sign-up is closed.',
  'two-factor-required': 'Two factors are required: everyone without a second factor sets one up when they next sign in.',
  'two-factor-optional': 'Two factors are no longer required.',
};

/**
 * The Admin area is the signed-in instance owner's (its own signed-in scope, routes.ts). Anyone
 * else, signed out included, gets the dashboard's 404, as for an address that does not exist:
 * the area gives no hint that it is there. The services check again
 * (instance-admin.service.ts); this only answers before any work is done.
 */
export const adminArea = {
  admits: (user: SignedInUser) => user.isOwner,
  turnAway: async () => {
    throw notFound('Page');
  },
};

/** The users list's search and page, from the query of the page or of a row's form. */
function usersState(request: FastifyRequest) {
  return { search: (queryParam(request, 'q') ?? '').trim().slice(0, MAX_SEARCH), page: pageParam(request) };
}

/** /dashboard/admin/*: the instance owner's view of every user and organization, and the sign-up setting. */
export const adminScreen: Screen = (app, context) => {
  const view = (request: FastifyRequest, user: SignedInUser, path: string) => ({ ...pageContext(context, request), path, user });

  const usersPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: SignedInUser,
    extra: Partial<AdminUsersPage>,
    status = 200,
  ) => {
    const { search, page } = usersState(request);
    const { total, users } = await listAllUsers(context, actorOfUser(user), { search, limit: PER_PAGE, offset: (page - 1) * PER_PAGE });
    const paging = { page, perPage: PER_PAGE, total };
    return html(reply, status, renderAdminUsers(view(request, user, '/dashboard/admin/users'), { users, search, paging, ...extra }));
  };

  app.get('/admin', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const summary = await instanceSummary(context, actorOfUser(user));
    const notice = OVERVIEW_NOTICES[queryParam(request, 'done') ?? ''];
    return html(reply, 200, renderAdminOverview(view(request, user, '/dashboard/admin'), { ...summary, notice }));
  });

  app.post('/admin/signup', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const signup = field(request.body, 'signup');
    // Only a forged form sends anything else: the dashboard's 400 page.
    if (signup !== 'open' && signup !== 'closed') throw validationError('signup', 'signup must be open or closed');
    await setSignupOpen(context, actorOfUser(user), { open: signup === 'open' });
    return seeOther(reply, `/dashboard/admin?done=${signup === 'open' ? 'opened' : 'closed'}`);
  });

  app.post('/admin/two-factor', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const value = field(request.body, 'two_factor');
    if (value !== 'required' && value !== 'optional') throw validationError('two_factor', 'two_factor must be required or optional');
    try {
      await setTwoFactorRequired(context, actorOfUser(user), { required: value === 'required' });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'forbidden') throw error;
      const summary = await instanceSummary(context, actorOfUser(user));
      return html(
        reply,
        400,
        renderAdminOverview(view(request, user, '/dashboard/admin'), { ...summary, twoFactorError: sentence(error.message) }),
      );
    }
    return seeOther(reply, `/dashboard/admin?done=two-factor-${value}`);
  });

  app.get('/admin/users', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return usersPage(request, reply, user, { notice: USER_NOTICES[queryParam(request, 'done') ?? ''] });
  });

  /** After a row's form: the list as it was (search and page), with the notice of what was done. */
  const backToUsers = (request: FastifyRequest, reply: FastifyReply, done: string) =>
    seeOther(reply, adminUsersPath({ ...usersState(request), done }));

  app.post<UserParams>('/admin/users/:id/plan', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    try {
      await setUserPlan(context, actorOfUser(user), { userId: request.params.id, plan: field(request.body, 'plan') });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'validation_error') throw error;
      return usersPage(request, reply, user, { error: `No plan was changed. ${sentence(error.message)}` }, 400);
    }
    return backToUsers(request, reply, 'plan');
  });

  app.post<UserParams>('/admin/users/:id/enable', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    await setUserDisabled(context, actorOfUser(user), { userId: request.params.id, disabled: false });
    return backToUsers(request, reply, 'enabled');
  });

  // Disabling asks first (dashboard.js, or this confirmation page without scripts).
  app.post<UserParams>('/admin/users/:id/disable', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    if (isConfirmed(request.body)) {
      await setUserDisabled(context, actor, { userId: request.params.id, disabled: true });
      return backToUsers(request, reply, 'disabled');
    }
    const target = await getAnyUser(context, actor, { userId: request.params.id });
    return askFirst(context, request, reply, user, '/dashboard/admin/users', {
      title: `Disable ${target.email}?`,
      text: 'They are signed out at once, cannot sign in, and their API keys are refused until you enable them again. Their data stays.',
      action: adminUserAction(request.params.id, 'disable', usersState(request)),
      button: 'Disable',
      cancel: adminUsersPath(usersState(request)),
    });
  });

  app.get('/admin/organizations', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const page = pageParam(request);
    const { total, rows } = await listAllOrganizations(context, actorOfUser(user), { limit: PER_PAGE, offset: (page - 1) * PER_PAGE });
    const paging = { page, perPage: PER_PAGE, total };
    return html(
      reply,
      200,
      renderAdminOrganizations(view(request, user, '/dashboard/admin/organizations'), { organizations: rows, paging }),
    );
  });
};
