import type { FastifyRequest } from 'fastify';
import { acceptInvite, openInvite } from '../../features/accounts/index.js';
import { TWO_FACTOR_PATH } from '../account/two-factor.routes.js';
import { csrfFor, field, html, queryParam, seeOther, signInAndRedirect, submitForm, type Screen } from '../screen.js';
import { renderInvite, renderInviteEnded } from './invite-accept.js';

/** The request a change comes through, for the audit log. */
const originOf = (request: FastifyRequest) => ({ requestId: request.id, ip: request.ip });

/**
 * /dashboard/invites/accept?token=…: the page an invitation's link opens, signed in or not.
 * Showing it changes nothing (mail scanners fetch links); its POST accepts: the signed-in user
 * of the invited address joins, or, with no one signed in and no account at the address, the
 * account is created with the password given, signed in, and joins. A signed-in user who owes
 * the owner's required second factor sets it up first, as on every signed-in page: the page and
 * its POST send them to enrol, and the link still works afterwards.
 */
export const inviteAcceptScreen: Screen = (app, context) => {
  const invitePage = async (request: FastifyRequest, token: string, errors?: Record<string, string>) => {
    const csrf = csrfFor(context, request);
    const opened = await openInvite(context, token);
    if (opened.state !== 'valid') return { status: 410, body: renderInviteEnded(csrf, opened.state) };
    const signedInAs = request.dashboard.user?.email;
    const body = renderInvite({ csrf, token, invite: opened.invite, hasAccount: opened.hasAccount, signedInAs, errors });
    return { status: errors ? 400 : 200, body };
  };

  app.get('/invites/accept', { schema: { hide: true } }, async (request, reply) => {
    if (request.dashboard.user?.mustEnrol) return seeOther(reply, TWO_FACTOR_PATH);
    const { status, body } = await invitePage(request, queryParam(request, 'token') ?? '');
    return html(reply, status, body);
  });

  app.post('/invites/accept', { schema: { hide: true } }, async (request, reply) => {
    const token = field(request.body, 'token');
    const user = request.dashboard.user;
    if (user?.mustEnrol) return seeOther(reply, TWO_FACTOR_PATH);
    const password = field(request.body, 'password');
    const { saved, errors } = await submitForm({
      fields: ['password'],
      own: !user && password !== field(request.body, 'confirm') ? { confirm: 'The two passwords do not match.' } : {},
      save: () => acceptInvite(context, { token, user, password: user ? undefined : password, origin: originOf(request) }),
    });
    if (errors) {
      const { status, body } = await invitePage(request, token, errors);
      return html(reply, status, body);
    }
    if (saved.state !== 'valid') return html(reply, 410, renderInviteEnded(csrfFor(context, request), saved.state));
    const joined = `/dashboard/organizations/${encodeURIComponent(saved.organizationId!)}?done=joined`;
    return user ? seeOther(reply, joined) : signInAndRedirect(context, request, reply, saved.userId!, joined);
  });
};
