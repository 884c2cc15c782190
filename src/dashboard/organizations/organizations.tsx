import { administers, type InviteView, type SignedInUser } from '../../features/accounts/index.js';
import type { OrgRole } from '../../db/schema.js';
import { ActionButton, Alert, ConfirmButton, CsrfField, ErrorSummary, Field, fieldId, SelectField } from '../components/forms.js';
import { PlanBadge, renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, When } from '../components/table.js';
import { MailNotice } from '../auth/password-reset.js';
import { RoleBadge, RoleGuide, ROLE_DESCRIPTIONS, ROLE_LABELS, ROLE_OPTIONS } from '../components/roles.js';

type Context = PageContext & { user: SignedInUser };

export interface OrganizationsPage {
  organizations: ReadonlyArray<{ id: string; name: string; plan: string; role: OrgRole; created_at: string }>;
  /** Open invitations to the user's verified address. */
  invites: readonly InviteView[];
  form?: { name: string; errors: Record<string, string> };
}

/**
 * A table of invitations: to the user (named by organization, each joined with one button) or
 * of an organization (named by address, each revoked with one button).
 */
function InviteTable({ csrf, invites, of }: { csrf: string; invites: readonly InviteView[]; of: 'user' | { base: string } }) {
  const forUser = of === 'user';
  const label = forUser ? 'Invitations for you' : 'Pending invitations';
  return (
    <DataTable label={label} headings={[forUser ? 'Organization' : 'Email', 'Role', 'Invited by', 'Until', 'Actions']}>
      {invites.map((invite) => (
        <tr key={invite.id}>
          <th scope="row" data-label={forUser ? 'Organization' : 'Email'}>
            {forUser ? invite.organization_name : invite.email}
          </th>
          <td data-label="Role">
            <RoleBadge role={invite.role} />
          </td>
          <td data-label="Invited by">{invite.invited_by ?? <span class="muted">Someone no longer here</span>}</td>
          <td data-label="Until">
            <When at={invite.expires_at} />
          </td>
          <td data-label="Actions" class="cell-actions">
            {forUser ? (
              <ActionButton
                csrf={csrf}
                action={`/dashboard/organizations/invites/${encodeURIComponent(invite.id)}/accept`}
                label={`Join ${invite.organization_name}`}
              />
            ) : (
              <ActionButton
                csrf={csrf}
                action={`${of.base}/invites/${encodeURIComponent(invite.id)}/revoke`}
                label={`Revoke ${invite.email}`}
              />
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Invitations to the user's address. */
function InvitationsForYou({ csrf, invites }: { csrf: string; invites: readonly InviteView[] }) {
  return (
    <section class="card" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations for you</h2>
      <InviteTable csrf={csrf} invites={invites} of="user" />
    </section>
  );
}

/** /dashboard/organizations: invitations to the user, their organizations with their role, and founding one. */
export function renderOrganizations(context: Context, page: OrganizationsPage): string {
  const errors = page.form?.errors ?? {};
  return renderAppPage(
    context,
    'Organizations',
    <>
      <h1>Organizations</h1>
      <p class="lead">Organizations share tags, files and API keys between their members. Owners and admins manage members and keys.</p>
      {page.invites.length > 0 && <InvitationsForYou csrf={context.csrf} invites={page.invites} />}
      <div class="grid grid-wide-first">
        <section class="card" aria-labelledby="orgs-heading">
          <h2 id="orgs-heading">Your organizations</h2>
          {page.organizations.length === 0 ? (
            <p class="muted">You do not belong to any organization yet.</p>
          ) : (
            <DataTable label="Your organizations" headings={['Name', 'Your role', 'Plan', 'Created']}>
              {page.organizations.map((org) => (
                <tr key={org.id}>
                  <th scope="row" data-label="Name">
                    <a href={`/dashboard/organizations/${encodeURIComponent(org.id)}`}>{org.name}</a>
                  </th>
                  <td data-label="Your role">
                    <RoleBadge role={org.role} />
                  </td>
                  <td data-label="Plan">
                    <PlanBadge plan={org.plan} />
                  </td>
                  <td data-label="Created">
                    <When at={org.created_at} />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </section>
        <section class="card" aria-labelledby="new-org-heading">
          <h2 id="new-org-heading">New organization</h2>
          <p>You become its owner. Organizations are on your plan, Pro or Enterprise.</p>
          {/* The plan is the founder's, not a field: its problem is the whole form's. */}
          <ErrorSummary
            errors={errors}
            intro="No organization was created."
            order={['plan', 'name']}
            idOf={(name) => (name === 'plan' ? undefined : fieldId(name))}
          />
          <form method="post" action="/dashboard/organizations" class="stack">
            <CsrfField token={context.csrf} />
            <Field name="name" label="Name" autocomplete="organization" value={page.form?.name} error={errors.name} />
            <button type="submit" class="button button-primary">
              Create organization
            </button>
          </form>
        </section>
      </div>
    </>,
  );
}

export interface OrganizationPage {
  organization: {
    id: string;
    name: string;
    plan: string;
    created_at: string;
    role: OrgRole | null;
    members: ReadonlyArray<{ user_id: string; email: string; role: OrgRole; created_at: string }>;
  };
  /** Its open invites (shown to owners and admins). */
  invites: readonly InviteView[];
  /** Whether SMTP_URL is set: without it, an invite's link is in the server log. */
  mailConfigured: boolean;
  notice?: string;
  form?: { email: string; role: string; errors: Record<string, string> };
  /** A refused rename: the name as typed and its error. */
  rename?: { name: string; errors: Record<string, string> };
}

/** Rename (owners and admins) and hand over (the owner only). */
function Settings({ csrf, base, page }: { csrf: string; base: string; page: OrganizationPage }) {
  const { organization: org } = page;
  const others = org.members.filter((member) => member.role !== 'owner');
  return (
    <section class="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <ErrorSummary errors={page.rename?.errors ?? {}} intro="The organization was not renamed." />
      <form method="post" action={`${base}/name`} class="stack form-narrow">
        <CsrfField token={csrf} />
        <Field
          name="name"
          label="Organization name"
          autocomplete="organization"
          value={page.rename?.name ?? org.name}
          error={page.rename?.errors.name}
        />
        <div class="actions">
          <button type="submit" class="button button-secondary">
            Rename
          </button>
        </div>
      </form>
      {org.role === 'owner' && others.length > 0 && (
        <form
          method="post"
          action={`${base}/owner`}
          class="stack form-narrow settings-transfer"
          data-confirm="Hand over this organization? You stay as an admin and cannot take it back yourself."
        >
          <CsrfField token={csrf} />
          <input type="hidden" name="confirmed" value="" />
          <SelectField
            name="user_id"
            label="Transfer ownership to"
            options={others.map((member) => ({ value: member.user_id, label: member.email }))}
            hint="The new owner gets full control; you stay as an admin."
          />
          <div class="actions">
            <button type="submit" class="button button-quiet button-danger">
              Hand over
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function MemberActions({
  csrf,
  base,
  member,
}: {
  csrf: string;
  base: string;
  member: OrganizationPage['organization']['members'][number];
}) {
  if (member.role === 'owner') return <span class="muted">Owner</span>;
  const memberPath = `${base}/members/${encodeURIComponent(member.user_id)}`;
  return (
    <div class="row-actions row-actions-inline">
      <form method="post" action={`${memberPath}/role`} class="inline-form role-form">
        <CsrfField token={csrf} />
        <SelectField
          name="role"
          id={`role-${member.user_id}`}
          label={`Change ${member.email} to`}
          options={ROLE_OPTIONS}
          value={member.role}
          hideLabel
        />
        <button type="submit" class="button button-quiet">
          Change role
        </button>
      </form>
      <ConfirmButton
        csrf={csrf}
        action={`${memberPath}/remove`}
        question={`Remove ${member.email}? Their keys for this organization stop working.`}
        label="Remove"
        danger
      />
    </div>
  );
}

/** The organization's open invites. */
function PendingInvites({ csrf, base, invites }: { csrf: string; base: string; invites: readonly InviteView[] }) {
  return (
    <section class="card" aria-labelledby="pending-heading">
      <h2 id="pending-heading">Pending invitations</h2>
      {invites.length === 0 ? (
        <p class="muted">No invitation is waiting for an answer.</p>
      ) : (
        <InviteTable csrf={csrf} invites={invites} of={{ base }} />
      )}
    </section>
  );
}

/** /dashboard/organizations/{id}: members and roles; owners and admins invite, change and remove them. */
export function renderOrganization(context: Context, page: OrganizationPage): string {
  const { organization: org } = page;
  const manages = org.role !== null && administers(org.role);
  const base = `/dashboard/organizations/${encodeURIComponent(org.id)}`;
  const errors = page.form?.errors ?? {};
  return renderAppPage(
    context,
    org.name,
    <>
      <p class="breadcrumb">
        <a href="/dashboard/organizations">Organizations</a>
      </p>
      <h1>{org.name}</h1>
      <p class="lead">
        <PlanBadge plan={org.plan} /> Your role: {org.role ? ROLE_LABELS[org.role] : 'None'}
      </p>
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <div class="stack-cards">
        <section class="card" aria-labelledby="members-heading">
          <h2 id="members-heading">Members</h2>
          <DataTable label="Members" headings={manages ? ['Email', 'Role', 'Since', 'Actions'] : ['Email', 'Role', 'Since']}>
            {org.members.map((member) => (
              <tr key={member.user_id}>
                <th scope="row" data-label="Email">
                  {member.email}
                </th>
                <td data-label="Role">
                  <RoleBadge role={member.role} />
                </td>
                <td data-label="Since">
                  <When at={member.created_at} />
                </td>
                {manages && (
                  <td data-label="Actions" class="cell-actions">
                    <MemberActions csrf={context.csrf} base={base} member={member} />
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        </section>
        {manages ? (
          <>
            <section class="card" aria-labelledby="invite-heading">
              <h2 id="invite-heading">Invite someone</h2>
              <p>
                We mail them a link that works for seven days. It lets them join with their account, or create one at that address, even
                while sign-up is closed.
              </p>
              <MailNotice configured={page.mailConfigured} />
              <RoleGuide />
              <ErrorSummary errors={errors} intro="No invitation was sent." order={['email', 'role']} />
              <form method="post" action={`${base}/invites`} class="stack form-narrow">
                <CsrfField token={context.csrf} />
                <Field name="email" label="Email" type="email" autocomplete="off" value={page.form?.email} error={errors.email} />
                <SelectField name="role" label="Role" options={ROLE_OPTIONS} value={page.form?.role ?? 'editor'} error={errors.role} />
                <button type="submit" class="button button-primary">
                  Send invitation
                </button>
              </form>
            </section>
            <PendingInvites csrf={context.csrf} base={base} invites={page.invites} />
          </>
        ) : (
          <section class="card" aria-labelledby="about-heading">
            <h2 id="about-heading">Your membership</h2>
            <p>
              {org.role && ROLE_DESCRIPTIONS[org.role]} Choose “{org.name}” in the workspace switcher to work in it. Its owner and admins
              manage members and API keys.
            </p>
          </section>
        )}
        {manages && <Settings csrf={context.csrf} base={base} page={page} />}
      </div>
    </>,
  );
}
