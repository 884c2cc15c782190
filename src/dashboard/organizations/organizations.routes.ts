import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptInviteOfUser,
  actorOfUser,
  administers,
  changeMemberRole,
  createOrganization,
  getOrganization,
  inviteMember,
  invitesForUser,
  listInvites,
  listOrganizations,
  removeMember,
  renameOrganization,
  revokeInvite,
  transferOrganization,
  type SignedInUser,
} from '../../features/accounts/index.js';
import { ApiError } from '../../errors.js';
import { isMailConfigured } from '../../features/mail/index.js';
import {
  fieldErrors,
  field,
  html,
  isConfirmed,
  pageContext,
  queryParam,
  signedInUser,
  seeOther,
  submitForm,
  type FormFields,
  type Screen,
} from '../screen.js';
import { renderOrganization, renderOrganizations, type OrganizationPage, type OrganizationsPage } from './organizations.js';
import { askFirst } from '../components/ask-first.js';

type OrgParams = { Params: { id: string } };
type MemberParams = { Params: { id: string; userId: string } };
type InviteParams = { Params: { id: string; inviteId: string } };

/** Invitations one user may send in an hour, across organizations. */
export const INVITES_PER_HOUR = 30;

/** The invite form's fields. */
const INVITE_FIELDS: FormFields = (problem) => fieldErrors(problem, ['email', 'role']);

const NOTICES: Record<string, string> = {
  invited: 'Invitation sent. It works for seven days.',
  revoked: 'Invitation revoked: its link no longer works.',
  joined: 'You joined the organization. Choose it in the workspace switcher to work in it.',
  changed: 'Role changed.',
  removed: 'Member removed. Their keys for this organization were disabled.',
  renamed: 'Organization renamed.',
  transferred: 'Ownership handed over. You are now an admin of this organization.',
};

/**
 * /dashboard/organizations: the user's organizations, founding one, and each one's members.
 * An organization the user is not a member of answers the dashboard's 404 (the services' own).
 */
export const organizationsScreen: Screen = (app, context) => {
  const mailConfigured = isMailConfigured(context);
  const organizationPage = async (
    request: FastifyRequest<OrgParams>,
    reply: FastifyReply,
    user: SignedInUser,
    page: Omit<OrganizationPage, 'organization' | 'invites' | 'mailConfigured'>,
    status = 200,
  ) => {
    const actor = actorOfUser(user);
    const organization = await getOrganization(context, actor, { organizationId: request.params.id });
    const invites =
      organization.role && administers(organization.role) ? await listInvites(context, actor, { organizationId: organization.id }) : [];
    const view = { ...pageContext(context, request), path: '/dashboard/organizations', user };
    return html(reply, status, renderOrganization(view, { ...page, organization, invites, mailConfigured }));
  };
  const back = (request: FastifyRequest<OrgParams>, done: string) =>
    `/dashboard/organizations/${encodeURIComponent(request.params.id)}?done=${done}`;

  const listPage = async (request: FastifyRequest, reply: FastifyReply, user: SignedInUser, form?: OrganizationsPage['form']) => {
    const [organizations, invites] = await Promise.all([listOrganizations(context, actorOfUser(user)), invitesForUser(context, user)]);
    const view = { ...pageContext(context, request), path: '/dashboard/organizations', user };
    return html(reply, form ? 400 : 200, renderOrganizations(view, { organizations, invites, form }));
  };

  app.get('/organizations', { schema: { hide: true } }, async (request, reply) => listPage(request, reply, signedInUser(request)));

  // An invitation to the user's verified address, accepted without its link.
  app.post<{ Params: { inviteId: string } }>(
    '/organizations/invites/:inviteId/accept',
    { schema: { hide: true } },
    async (request, reply) => {
      const user = signedInUser(request);
      const { organizationId } = await acceptInviteOfUser(context, user, { inviteId: request.params.inviteId });
      return seeOther(reply, `/dashboard/organizations/${encodeURIComponent(organizationId)}?done=joined`);
    },
  );

  app.post('/organizations', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const name = field(request.body, 'name');
    const { saved: org, errors } = await submitForm({
      fields: ['name', 'plan'],
      save: () => createOrganization(context, actorOfUser(user), { name }),
    });
    if (!errors) return seeOther(reply, `/dashboard/organizations/${encodeURIComponent(org.id)}`);
    return listPage(request, reply, user, { name, errors });
  });

  app.get<OrgParams>('/organizations/:id', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return organizationPage(request, reply, user, { notice: NOTICES[queryParam(request, 'done') ?? ''] });
  });

  app.post<OrgParams>('/organizations/:id/invites', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const email = field(request.body, 'email');
    const role = field(request.body, 'role');
    // Outsiders get the 404 before anything about the email is said.
    await getOrganization(context, actorOfUser(user), { organizationId: request.params.id });
    // Each invitation is a mail in the instance's name: a few dozen an hour per sender.
    const rule = { key: `invite:user:${user.userId}`, limit: INVITES_PER_HOUR, windowMs: 3_600_000, bucketMs: 60_000 };
    const allowed = await context.limits.check([rule], context.clock.now().getTime(), true);
    if (!allowed.allowed) {
      const minutes = Math.max(1, Math.ceil(allowed.windows[0]!.retryAfterMs / 60_000));
      const errors = { email: `You sent ${INVITES_PER_HOUR} invitations in the last hour: try again in ${minutes} minutes.` };
      return organizationPage(request, reply, user, { form: { email, role, errors } }, 429);
    }
    const { errors } = await submitForm({
      fields: INVITE_FIELDS,
      save: () => inviteMember(context, actorOfUser(user), { organizationId: request.params.id, email, role }),
    });
    if (errors) return organizationPage(request, reply, user, { form: { email, role, errors } }, 400);
    return seeOther(reply, back(request, 'invited'));
  });

  app.post<InviteParams>('/organizations/:id/invites/:inviteId/revoke', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    await revokeInvite(context, actorOfUser(user), { organizationId: request.params.id, inviteId: request.params.inviteId });
    return seeOther(reply, back(request, 'revoked'));
  });

  app.post<OrgParams>('/organizations/:id/name', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const name = field(request.body, 'name');
    const { errors } = await submitForm({
      fields: ['name'],
      save: () => renameOrganization(context, actorOfUser(user), { organizationId: request.params.id, name }),
    });
    if (errors) return organizationPage(request, reply, user, { rename: { name, errors } }, 400);
    return seeOther(reply, back(request, 'renamed'));
  });

  app.post<OrgParams>('/organizations/:id/owner', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const { id } = request.params;
    const userId = field(request.body, 'user_id');
    if (!isConfirmed(request.body)) {
      const org = await getOrganization(context, actorOfUser(user), { organizationId: id });
      const member = org.members.find((m) => m.user_id === userId && m.role !== 'owner');
      if (!member || org.role !== 'owner') throw new ApiError('not_found', 'Member not found');
      return askFirst(context, request, reply, user, '/dashboard/organizations', {
        title: `Make ${member.email} the owner of ${org.name}?`,
        text: 'They get full control of the organization. You stay as an admin and cannot take it back yourself.',
        action: `/dashboard/organizations/${encodeURIComponent(id)}/owner`,
        button: 'Hand over',
        cancel: `/dashboard/organizations/${encodeURIComponent(id)}`,
        fields: { user_id: userId },
      });
    }
    await transferOrganization(context, actorOfUser(user), { organizationId: id, userId });
    return seeOther(reply, back(request, 'transferred'));
  });

  app.post<MemberParams>('/organizations/:id/members/:userId/role', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const { id, userId } = request.params;
    await changeMemberRole(context, actorOfUser(user), { organizationId: id, userId, role: field(request.body, 'role') });
    return seeOther(reply, back(request, 'changed'));
  });

  app.post<MemberParams>('/organizations/:id/members/:userId/remove', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const { id, userId } = request.params;
    if (!isConfirmed(request.body)) {
      const org = await getOrganization(context, actorOfUser(user), { organizationId: id });
      const member = org.members.find((m) => m.user_id === userId);
      if (!member || !org.role || !administers(org.role)) throw new ApiError('not_found', 'Member not found');
      return askFirst(context, request, reply, user, '/dashboard/organizations', {
        title: `Remove ${member.email}?`,
        text: `They leave ${org.name}, and their API keys for it stop working at once.`,
        action: `/dashboard/organizations/${encodeURIComponent(id)}/members/${encodeURIComponent(userId)}/remove`,
        button: 'Remove',
        cancel: `/dashboard/organizations/${encodeURIComponent(id)}`,
      });
    }
    await removeMember(context, actorOfUser(user), { organizationId: id, userId });
    return seeOther(reply, back(request, 'removed'));
  });
};
