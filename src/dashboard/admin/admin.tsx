import type { ComponentChildren } from 'preact';
import { PLANS, type AdminUserView, type SignedInUser } from '../../features/accounts/index.js';
import { ActionButton, Alert, ConfirmButton, CsrfField, SelectField } from '../components/forms.js';
import { PlanBadge, renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, formatNumber, Pager, When } from '../components/table.js';
import { Tabs } from '../components/tabs.js';

type Context = PageContext & { user: SignedInUser };

/** The Admin area's pages, each an address of its own under /dashboard/admin. */
const ADMIN_SECTIONS = [
  { href: '/dashboard/admin', label: 'Overview' },
  { href: '/dashboard/admin/users', label: 'Users' },
  { href: '/dashboard/admin/organizations', label: 'Organizations' },
] as const;

type AdminSection = (typeof ADMIN_SECTIONS)[number]['href'];

const PLAN_OPTIONS = PLANS.map((plan) => ({ value: plan, label: plan[0]!.toUpperCase() + plan.slice(1) }));

/** The head of every Admin page: its title, what the area is, and the section tabs. */
function AdminHeader({ current }: { current: AdminSection }) {
  return (
    <header class="admin-header">
      <h1>Admin</h1>
      <p class="lead">Everyone on this instance. Only you, its owner, see this area.</p>
      <Tabs label="Admin" items={ADMIN_SECTIONS} current={current} />
    </header>
  );
}

export interface AdminOverview {
  users: number;
  disabledUsers: number;
  organizations: number;
  signupOpen: boolean;
  twoFactorRequired: boolean;
  notice?: string;
  /** Why the two-factor setting was not changed. */
  twoFactorError?: string;
}

/** One figure of the overview, linking to its list. */
function Stat({ label, value, detail, href }: { label: string; value: string; detail: string; href?: string }) {
  return (
    <div class="card stat">
      <p class="stat-label">{href ? <a href={href}>{label}</a> : label}</p>
      <p class="stat-value">{value}</p>
      <p class="stat-detail muted">{detail}</p>
    </div>
  );
}

/** An instance setting that is on or off: what it does now, and one button that turns it the other way. */
function SettingCard(props: {
  csrf: string;
  name: string;
  heading: string;
  on: boolean;
  /** What the setting does in its present state. */
  text: ComponentChildren;
  /** The field's value that turns it the other way, and that button's label. */
  next: string;
  button: string;
  error?: string;
}) {
  return (
    <section class="card" aria-labelledby={`${props.name}-heading`}>
      <h2 id={`${props.name}-heading`}>{props.heading}</h2>
      <p>{props.text}</p>
      {props.error && <Alert kind="error">{props.error}</Alert>}
      <form method="post" action={`/dashboard/admin/${props.name.replaceAll('_', '-')}`} class="actions">
        <CsrfField token={props.csrf} />
        <input type="hidden" name={props.name} value={props.next} />
        <button type="submit" class={props.on ? 'button button-secondary' : 'button button-primary'}>
          {props.button}
        </button>
        <span class="muted">Applies from the next request, on every instance.</span>
      </form>
    </section>
  );
}

function SignupCard({ csrf, open }: { csrf: string; open: boolean }) {
  const text = open ? (
    <>
      Anyone who can reach this dashboard can create an account at <code>/dashboard/signup</code>. The sign-in page links to it.
    </>
  ) : (
    <>
      Nobody can create an account on their own. You add people with the command line (<code>tagsvc user create</code>).
    </>
  );
  return (
    <SettingCard
      csrf={csrf}
      name="signup"
      heading="Sign-up"
      on={open}
      text={text}
      next={open ? 'closed' : 'open'}
      button={open ? 'Close sign-up' : 'Open sign-up'}
    />
  );
}

function TwoFactorCard({ csrf, required, error }: { csrf: string; required: boolean; error?: string }) {
  const text = required
    ? 'Everyone signs in with a second factor: an authenticator app or a passkey. Whoever has none is sent to set one up when they sign in.'
    : 'Each person chooses whether to add an authenticator app or a passkey to their password.';
  return (
    <SettingCard
      csrf={csrf}
      name="two_factor"
      heading="Two-factor sign-in"
      on={required}
      text={text}
      next={required ? 'optional' : 'required'}
      button={required ? 'Stop requiring two factors' : 'Require two factors for everyone'}
      error={error}
    />
  );
}

/** /dashboard/admin: the instance in figures, and its settings: sign-up, two factors. */
export function renderAdminOverview(context: Context, page: AdminOverview): string {
  return renderAppPage(
    context,
    'Admin',
    <>
      <AdminHeader current="/dashboard/admin" />
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <div class="stats">
        <Stat
          label="Users"
          value={formatNumber(page.users)}
          detail={page.disabledUsers ? `${formatNumber(page.disabledUsers)} disabled` : 'None disabled'}
          href="/dashboard/admin/users"
        />
        <Stat label="Organizations" value={formatNumber(page.organizations)} detail="Of any owner" href="/dashboard/admin/organizations" />
        <Stat label="Sign-up" value={page.signupOpen ? 'Open' : 'Closed'} detail="Who may create an account" />
      </div>
      <div class="grid">
        <SignupCard csrf={context.csrf} open={page.signupOpen} />
        <TwoFactorCard csrf={context.csrf} required={page.twoFactorRequired} error={page.twoFactorError} />
      </div>
    </>,
  );
}

export interface AdminUsersPage {
  users: AdminUserView[];
  search: string;
  paging: { page: number; perPage: number; total: number };
  notice?: string;
  error?: string;
}

/** The users list's query: its search and page (for row forms to come back to), and a done notice. */
function usersQuery({ search, page, done }: { search?: string; page?: number; done?: string }): string {
  const query = new URLSearchParams();
  if (search) query.set('q', search);
  if (page && page > 1) query.set('page', String(page));
  if (done) query.set('done', done);
  const text = query.toString();
  return text ? `?${text}` : '';
}

export function adminUsersPath(state: { search?: string; page?: number; done?: string }): string {
  return `/dashboard/admin/users${usersQuery(state)}`;
}

/** A row's form action: it carries the list's search and page, to come back to them. */
export function adminUserAction(userId: string, verb: 'plan' | 'enable' | 'disable', state: { search?: string; page?: number }): string {
  return `/dashboard/admin/users/${encodeURIComponent(userId)}/${verb}${usersQuery(state)}`;
}

function UserStatus({ user }: { user: AdminUserView }) {
  return <span class={user.disabled ? 'state state-off' : 'state state-on'}>{user.disabled ? 'Disabled' : 'Active'}</span>;
}

function UserRow({ csrf, user, state }: { csrf: string; user: AdminUserView; state: { search: string; page: number } }) {
  const action = (verb: 'plan' | 'enable' | 'disable') => adminUserAction(user.id, verb, state);
  return (
    <tr class={user.disabled ? 'row-disabled' : undefined}>
      <th scope="row" data-label="Email">
        <span class="admin-email">
          {user.email}
          {user.owner && <span class="badge">Owner</span>}
        </span>
      </th>
      <td data-label="Plan">
        <form method="post" action={action('plan')} class="inline-form role-form">
          <CsrfField token={csrf} />
          <SelectField
            name="plan"
            id={`plan-${user.id}`}
            label={`Plan of ${user.email}`}
            options={PLAN_OPTIONS}
            value={user.plan}
            hideLabel
          />
          <button type="submit" class="button button-quiet">
            Change plan
          </button>
        </form>
      </td>
      <td data-label="Created">
        <When at={user.created_at} />
      </td>
      <td data-label="Last sign-in">
        <When at={user.last_sign_in_at} />
      </td>
      <td data-label="Status">
        <UserStatus user={user} />
      </td>
      <td data-label="Two-factor">
        <span class={user.two_factor ? 'state state-on' : 'state state-off'}>{user.two_factor ? 'On' : 'Off'}</span>
      </td>
      <td data-label="Actions" class="cell-actions">
        {user.owner ? (
          <span class="muted">You</span>
        ) : user.disabled ? (
          <ActionButton csrf={csrf} action={action('enable')} label="Enable" />
        ) : (
          <ConfirmButton
            csrf={csrf}
            action={action('disable')}
            question={`Disable ${user.email}? They are signed out at once, cannot sign in, and their API keys stop working.`}
            label="Disable"
            danger
          />
        )}
      </td>
    </tr>
  );
}

function SearchForm({ search }: { search: string }) {
  return (
    <form method="get" action="/dashboard/admin/users" class="admin-search" role="search">
      <label for="user-search" class="visually-hidden">
        Search by email
      </label>
      <input id="user-search" type="search" name="q" value={search} placeholder="Search by email" autocomplete="off" spellcheck={false} />
      <button type="submit" class="button button-secondary">
        Search
      </button>
      {search && (
        <a class="button button-quiet" href="/dashboard/admin/users">
          Clear
        </a>
      )}
    </form>
  );
}

/** /dashboard/admin/users: every user, searchable by email; plan, disable and enable per row. */
export function renderAdminUsers(context: Context, page: AdminUsersPage): string {
  const state = { search: page.search, page: page.paging.page };
  return renderAppPage(
    context,
    'Users · Admin',
    <>
      <AdminHeader current="/dashboard/admin/users" />
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      {page.error && <Alert kind="error">{page.error}</Alert>}
      <section class="card" aria-labelledby="users-heading">
        <div class="card-head">
          <h2 id="users-heading">Users</h2>
          <SearchForm search={page.search} />
        </div>
        {page.users.length === 0 ? (
          <p class="muted">{page.search ? 'No user’s email contains this text.' : 'No users yet.'}</p>
        ) : (
          <DataTable label="Accounts" headings={['Email', 'Plan', 'Created', 'Last sign-in', 'Status', 'Two-factor', 'Actions']}>
            {page.users.map((user) => (
              <UserRow key={user.id} csrf={context.csrf} user={user} state={state} />
            ))}
          </DataTable>
        )}
        <Pager {...page.paging} path={adminUsersPath({ search: page.search })} label="Pages of users" />
      </section>
    </>,
  );
}

export interface AdminOrganizationsPage {
  organizations: ReadonlyArray<{
    id: string;
    name: string;
    plan: string;
    created_at: string;
    owner_email: string | null;
    members: number;
  }>;
  paging: { page: number; perPage: number; total: number };
}

/** /dashboard/admin/organizations: every organization, with its owner and size. */
export function renderAdminOrganizations(context: Context, page: AdminOrganizationsPage): string {
  return renderAppPage(
    context,
    'Organizations · Admin',
    <>
      <AdminHeader current="/dashboard/admin/organizations" />
      <section class="card" aria-labelledby="organizations-heading">
        <h2 id="organizations-heading">Organizations</h2>
        {page.organizations.length === 0 ? (
          <p class="muted">No organizations yet.</p>
        ) : (
          <DataTable label="Organizations" headings={['Name', 'Owner', 'Members', 'Plan', 'Created']}>
            {page.organizations.map((org) => (
              <tr key={org.id}>
                <th scope="row" data-label="Name">
                  {org.name}
                </th>
                <td data-label="Owner">{org.owner_email ?? <span class="muted">None</span>}</td>
                <td data-label="Members">{formatNumber(org.members)}</td>
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
        <Pager {...page.paging} path="/dashboard/admin/organizations" label="Pages of organizations" />
      </section>
    </>,
  );
}
