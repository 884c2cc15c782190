import { PERMISSIONS, PLAN_LIMITS, type KeyView, type Plan, type SignedInUser } from '../../features/accounts/index.js';
import {
  ActionButton,
  Alert,
  CheckboxGroup,
  ConfirmButton,
  CopyButton,
  CsrfField,
  ErrorSummary,
  Field,
  SelectField,
  TextAreaField,
  SubmitOrCancel,
} from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { MailNotice } from '../auth/password-reset.js';
import { DataTable, Pager, When } from '../components/table.js';

export interface KeyFormValues {
  name: string;
  permissions: readonly string[];
  /** The IP allow list as typed. */
  ip: string;
  /** An organization id, or '' for a personal key. */
  organization: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = { name: '', permissions: PERMISSIONS, ip: '', organization: '' };

export interface KeysPage {
  keys: readonly KeyView[];
  /** Which page of the table this is; `total` counts every key the user administers. */
  paging: { page: number; perPage: number; total: number };
  /** Every organization of the user (to name the scope of a key). */
  organizations: ReadonlyArray<{ id: string; name: string; role: string }>;
  /** A key value to show this once: right after Create or Regenerate. */
  shown?: { name: string; value: string; regenerated: boolean };
  notice?: string;
  form?: { values: KeyFormValues; errors: Record<string, string> };
  /** Present while the user's address is not verified: no key can be created until it is. */
  unverified?: { mailConfigured: boolean; resent: boolean };
}

/** Instead of the new key form, for an address not verified yet: what to do, and a new link. */
function VerifyFirst({ csrf, email, unverified }: { csrf: string; email: string; unverified: NonNullable<KeysPage['unverified']> }) {
  return (
    <section class="card" aria-labelledby="verify-heading">
      <h2 id="verify-heading">Confirm your email address to create keys</h2>
      <p>We mailed a link to {email} when you signed up. Follow it to confirm the address is yours; then you can create API keys here.</p>
      {unverified.resent && <Alert kind="success">A new link is on its way to {email}. It works once, for seven days.</Alert>}
      <MailNotice configured={unverified.mailConfigured} />
      <form method="post" action="/dashboard/keys/verification" class="stack">
        <CsrfField token={csrf} />
        <button type="submit" class="button button-secondary">
          Send a new link
        </button>
      </form>
    </section>
  );
}

function ShownKey({ shown }: { shown: NonNullable<KeysPage['shown']> }) {
  return (
    <section class="card card-once" aria-labelledby="shown-key-heading" data-once="">
      <h2 id="shown-key-heading">{shown.regenerated ? `New value of “${shown.name}”` : `Key “${shown.name}” created`}</h2>
      <p>
        Copy it now: this is the only time it is shown. tagsvc keeps only a hash of it.
        {shown.regenerated && ' The old value has stopped working.'}
      </p>
      <div class="code">
        <pre id="shown-key" tabindex={0}>
          <code>{shown.value}</code>
        </pre>
        <CopyButton target="shown-key" />
      </div>
      <p class="field-hint">
        Send it as <code>Authorization: Bearer …</code> or <code>X-API-Key: …</code>.
      </p>
    </section>
  );
}

function KeyRow({ csrf, item, scope }: { csrf: string; item: KeyView; scope: string }) {
  const action = (verb: string) => `/dashboard/keys/${encodeURIComponent(item.id)}/${verb}`;
  return (
    <tr>
      <th scope="row" data-label="Name">
        {item.name}
      </th>
      <td data-label="Prefix">
        <code class="prefix">{`${item.prefix}…`}</code>
      </td>
      <td data-label="Permissions">
        <ul class="chips">
          {item.permissions.map((permission) => (
            <li key={permission}>{permission}</li>
          ))}
        </ul>
      </td>
      <td data-label="Environment">
        <span class={`badge badge-${item.environment}`}>{item.environment}</span>
      </td>
      <td data-label="Scope">{scope}</td>
      <td data-label="IP allow list">
        {item.ip_allowlist ? (
          <ul class="plain">
            {item.ip_allowlist.map((range) => (
              <li key={range}>
                <code>{range}</code>
              </li>
            ))}
          </ul>
        ) : (
          <span class="muted">Any address</span>
        )}
      </td>
      <td data-label="Created">
        <When at={item.created_at} />
      </td>
      <td data-label="Last used">
        <When at={item.last_used_at} />
      </td>
      <td data-label="State">
        <span class={item.enabled ? 'state state-on' : 'state state-off'}>{item.enabled ? 'Enabled' : 'Disabled'}</span>
      </td>
      <td data-label="Actions" class="cell-actions">
        <div class="row-actions">
          <a class="button button-quiet" href={`/dashboard/keys/${encodeURIComponent(item.id)}/edit`}>
            Edit
          </a>
          <ActionButton csrf={csrf} action={action(item.enabled ? 'disable' : 'enable')} label={item.enabled ? 'Disable' : 'Enable'} />
          <ConfirmButton
            csrf={csrf}
            action={action('regenerate')}
            question={`Regenerate “${item.name}”? Its current value stops working at once.`}
            label="Regenerate"
          />
          <ConfirmButton
            csrf={csrf}
            action={action('delete')}
            question={`Delete “${item.name}”? Requests with it are refused at once.`}
            label="Delete"
            danger
          />
        </div>
      </td>
    </tr>
  );
}

function KeysTable({ csrf, page }: { csrf: string; page: KeysPage }) {
  if (page.keys.length === 0) return <p class="muted">No API keys yet. Create one below.</p>;
  const names = new Map(page.organizations.map((org) => [org.id, org.name]));
  return (
    <DataTable
      label="API keys"
      headings={['Name', 'Prefix', 'Permissions', 'Environment', 'Scope', 'IP allow list', 'Created', 'Last used', 'State', 'Actions']}
    >
      {page.keys.map((item) => (
        <KeyRow
          key={item.id}
          csrf={csrf}
          item={item}
          scope={item.organization_id ? (names.get(item.organization_id) ?? 'Organization') : 'Personal'}
        />
      ))}
    </DataTable>
  );
}

/** The fields of KeyFields, in the page's order. */
const KEY_FIELD_ORDER = ['name', 'permissions', 'ip'];

/** Name, permissions and IP allow list: what a key is called, may do and where from. */
function KeyFields({ values, errors }: { values: Omit<KeyFormValues, 'organization'>; errors: Record<string, string> }) {
  return (
    <>
      <Field name="name" label="Name" autocomplete="off" value={values.name} hint="What uses it, e.g. “deploy bot”." error={errors.name} />
      <CheckboxGroup name="permissions" legend="Permissions" values={PERMISSIONS} checked={values.permissions} error={errors.permissions} />
      <TextAreaField
        name="ip"
        label="IP allow list"
        value={values.ip}
        hint="Optional. IP addresses or CIDR ranges, one per line or separated by commas. Empty: any address."
        error={errors.ip}
      />
    </>
  );
}

/**
 * Before a key is made, on the Free plan: a personal key is created, but every /v1 request with
 * it is refused (403) until the user's plan changes. Organizations are never on Free.
 */
function PlanNotice({ plan, organizations }: { plan: Plan; organizations: number }) {
  if (PLAN_LIMITS[plan].apiAccess) return null;
  return (
    <Alert kind="info">
      <strong>API access needs the Pro or Enterprise plan.</strong> Your account is on the Free plan: a personal key can be created, but the
      API refuses every request made with it (403 forbidden) until your plan is Pro or Enterprise.
      {organizations > 0 && ' Keys of your organizations follow the organization’s plan and work.'}
    </Alert>
  );
}

function KeyForm({ csrf, page, plan }: { csrf: string; page: KeysPage; plan: Plan }) {
  const { values, errors } = page.form ?? { values: EMPTY_KEY_FORM, errors: {} };
  const administered = page.organizations.filter((org) => org.role === 'owner' || org.role === 'admin');
  return (
    <section class="card" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">New key</h2>
      <PlanNotice plan={plan} organizations={administered.length} />
      <form method="post" action="/dashboard/keys" class="stack form-narrow">
        <CsrfField token={csrf} />
        <KeyFields values={values} errors={errors} />
        <SelectField
          name="organization"
          label="Scope"
          value={values.organization}
          options={[{ value: '', label: 'Personal' }, ...administered.map((org) => ({ value: org.id, label: org.name }))]}
          hint="An organization key acts for the organization: those you own or administer are listed."
          error={errors.organization}
        />
        <div class="actions">
          <button type="submit" name="environment" value="live" class="button button-primary">
            Create Key
          </button>
          <button type="submit" name="environment" value="test" class="button button-secondary">
            Create Test Key
          </button>
        </div>
        <p class="field-hint">Test keys (svc_test_…) reach only the test environment’s data.</p>
      </form>
    </section>
  );
}

export interface KeyEditPage {
  key: KeyView;
  values: Omit<KeyFormValues, 'organization'>;
  errors: Record<string, string>;
}

/** /dashboard/keys/{id}/edit: a key's name, permissions and allow list; its value stays. */
export function renderKeyEdit(context: PageContext & { user: SignedInUser }, page: KeyEditPage): string {
  return renderAppPage(
    context,
    `Edit ${page.key.name}`,
    <>
      <p class="breadcrumb">
        <a href="/dashboard/keys">API Keys</a>
      </p>
      <h1>Edit “{page.key.name}”</h1>
      <p class="lead">
        <code class="prefix">{`${page.key.prefix}…`}</code> keeps its value, environment and scope. Changes apply from the next request.
      </p>
      <ErrorSummary errors={page.errors} intro="Nothing was changed." order={KEY_FIELD_ORDER} />
      <section class="card">
        <form method="post" action={`/dashboard/keys/${encodeURIComponent(page.key.id)}/edit`} class="stack form-narrow">
          <CsrfField token={context.csrf} />
          <KeyFields values={page.values} errors={page.errors} />
          <SubmitOrCancel cancel="/dashboard/keys" />
        </form>
      </section>
    </>,
  );
}

/** /dashboard/keys: the keys the user administers, the one-time value of a new key, and the form. */
export function renderKeys(context: PageContext & { user: SignedInUser }, page: KeysPage): string {
  return renderAppPage(
    context,
    'API Keys',
    <>
      <h1>API Keys</h1>
      <p class="lead">
        Your personal keys and the keys of the organizations you own or administer. Every change applies to the next request.
      </p>
      {page.shown && <ShownKey shown={page.shown} />}
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      {page.form && <ErrorSummary errors={page.form.errors} intro="No key was created." order={[...KEY_FIELD_ORDER, 'organization']} />}
      <section class="card" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys</h2>
        <KeysTable csrf={context.csrf} page={page} />
        <Pager {...page.paging} path="/dashboard/keys" label="Pages of keys" />
      </section>
      {page.unverified ? (
        <VerifyFirst csrf={context.csrf} email={context.user.email} unverified={page.unverified} />
      ) : (
        <KeyForm csrf={context.csrf} page={page} plan={context.user.plan} />
      )}
    </>,
  );
}
