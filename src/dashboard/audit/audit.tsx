import { AUDIT_ACTIONS, type AuditEntryView } from '../../features/audit/index.js';
import type { SignedInUser } from '../../features/accounts/index.js';
import { Alert } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, Pager, When, withQuery } from '../components/table.js';

type Context = PageContext & { user: SignedInUser };

export const AUDIT_PATH = '/dashboard/audit-log';
export const AUDIT_CSV_PATH = '/dashboard/audit-log/export.csv';

/** The page's filters as in its address; empty strings for those not set. */
export interface AuditFilter {
  actor: string;
  action: string;
  from: string;
  to: string;
  /** The instance owner's whole-instance view. */
  scope: '' | 'instance';
}

export interface AuditPage {
  entries: AuditEntryView[];
  filter: AuditFilter;
  paging: { page: number; perPage: number; total: number };
  /** The filters' refusals (a malformed date), by field. */
  errors: Record<string, string>;
  /** What the page shows: the workspace's name, or the whole instance. */
  showing: string;
}

/** The query of the page's address for a filter, without the empty ones. */
export function auditQuery(filter: AuditFilter): Record<string, string> {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== ''));
}

function Filters({ filter, errors, isOwner }: { filter: AuditFilter; errors: Record<string, string>; isOwner: boolean }) {
  const invalid = (name: string) => (errors[name] ? 'true' : undefined);
  return (
    <form method="get" action={AUDIT_PATH} class="filters audit-filters" role="search" aria-label="Audit log">
      <div class="field">
        <label for="filter-actor">Actor</label>
        <input id="filter-actor" name="actor" value={filter.actor} placeholder="Email, key name or id" autocomplete="off" />
      </div>
      <div class={errors.action ? 'field field-invalid' : 'field'}>
        <label for="filter-action">Action</label>
        <select id="filter-action" name="action" aria-invalid={invalid('action')}>
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action} selected={action === filter.action}>
              {action}
            </option>
          ))}
        </select>
      </div>
      <div class={errors.from ? 'field field-invalid' : 'field'}>
        <label for="filter-from">From</label>
        <input id="filter-from" type="date" name="from" value={filter.from} aria-invalid={invalid('from')} />
      </div>
      <div class={errors.to ? 'field field-invalid' : 'field'}>
        <label for="filter-to">To</label>
        <input id="filter-to" type="date" name="to" value={filter.to} aria-invalid={invalid('to')} />
      </div>
      {isOwner && (
        <div class="field">
          <label for="filter-scope">Workspaces</label>
          <select id="filter-scope" name="scope">
            <option value="">This workspace</option>
            <option value="instance" selected={filter.scope === 'instance'}>
              The whole instance
            </option>
          </select>
        </div>
      )}
      <div class="filter-actions">
        <button type="submit" class="button button-secondary">
          Apply
        </button>
      </div>
    </form>
  );
}

function Actor({ actor }: { actor: AuditEntryView['actor'] }) {
  if (actor.type === 'operator') return <span>Operator (command line)</span>;
  if (actor.type === 'anonymous') return <span class="muted">Not signed in</span>;
  return (
    <span class="audit-actor">
      <span>{actor.name}</span>
      <span class="muted audit-id">{actor.type === 'key' ? `API key ${actor.id}` : actor.id}</span>
    </span>
  );
}

function EntryRow({ entry }: { entry: AuditEntryView }) {
  return (
    <tr>
      <td data-label="Time">
        <When at={entry.created_at} />
      </td>
      <th scope="row" data-label="Action">
        <code>{entry.action}</code>
        {entry.environment === 'test' && <span class="badge">Test</span>}
      </th>
      <td data-label="Actor">
        <Actor actor={entry.actor} />
      </td>
      <td data-label="Target">{entry.target_id ? <code class="audit-id">{entry.target_id}</code> : <span class="muted">—</span>}</td>
      <td data-label="Network">{entry.ip ?? <span class="muted">—</span>}</td>
      <td data-label="Request">{entry.request_id ? <code class="audit-id">{entry.request_id}</code> : <span class="muted">—</span>}</td>
    </tr>
  );
}

/** /dashboard/audit-log: who changed what in the workspace, newest first, with filters, pages and a CSV download. */
export function renderAuditLog(context: Context, page: AuditPage): string {
  const query = auditQuery(page.filter);
  const filtered = Object.keys(query).some((key) => key !== 'scope');
  const problems = Object.values(page.errors);
  return renderAppPage(
    context,
    'Audit log',
    <>
      <header class="page-header">
        <div>
          <h1>Audit log</h1>
          <p class="lead">
            {`Every change to ${page.showing}, by whom and from which network, through the dashboard, the API and the command line. Entries are kept for a year unless the operator says otherwise.`}
          </p>
        </div>
        <div class="actions page-actions">
          <a class="button button-quiet" href={withQuery(AUDIT_CSV_PATH, query)} download>
            Download CSV
          </a>
        </div>
      </header>
      {problems.length > 0 && <Alert kind="error">{problems.join(' ')}</Alert>}
      <section class="card" aria-labelledby="audit-heading">
        <h2 id="audit-heading" class="visually-hidden">
          Entries
        </h2>
        <Filters filter={page.filter} errors={page.errors} isOwner={context.user.isOwner} />
        {page.entries.length === 0 ? (
          <div class="empty">
            <p>{filtered ? 'No entries match these filters.' : 'Nothing has been changed here yet.'}</p>
            {filtered && (
              <a class="button button-quiet" href={AUDIT_PATH}>
                Clear the filters
              </a>
            )}
          </div>
        ) : (
          <DataTable label="Audit log" headings={['Time', 'Action', 'Actor', 'Target', 'Network', 'Request']}>
            {page.entries.map((entry) => (
              <EntryRow key={entry.id} entry={entry} />
            ))}
          </DataTable>
        )}
        <Pager {...page.paging} path={withQuery(AUDIT_PATH, query)} label="Pages of the audit log" />
      </section>
    </>,
  );
}
