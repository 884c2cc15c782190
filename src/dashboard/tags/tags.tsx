import type { SignedInUser } from '../../features/accounts/index.js';
import type { FolderView } from '../../features/folders/index.js';
import type { PageState } from '../../features/tags/index.js';
import { Alert, CopyButton, CsrfField, ErrorSummary, SubmitOrCancel } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, formatNumber, Pager, When, withQuery } from '../components/table.js';
import { tagPath } from './tag-header.js';
import { StateBadge } from './tag-status.js';
import { describePeriod } from '../analytics/analytics-parts.js';
import { showsTestData } from '../workspace/workspaces.js';
import {
  folderOptions,
  READ_LABELS,
  TAG_SETTINGS_ORDER,
  TagSettingsFields,
  type TagSettingsChoices,
  type TagSettingsValues,
} from './tag-settings.js';

/** The orders the list offers: the value in `?sort=` and its label. */
export const TAG_ORDERS = [
  { value: 'newest', label: 'Newest first' },
  { value: 'oldest', label: 'Oldest first' },
  { value: 'title', label: 'Title A–Z' },
  { value: 'updated', label: 'Recently updated' },
] as const;

export type TagOrder = (typeof TAG_ORDERS)[number]['value'];

export interface TagListItem {
  id: string;
  short_id: string;
  title: string;
  /** The public page's address. */
  url: string;
  folder_id: string | null;
  permissions: { read: string; write: string };
  password_protected: boolean;
  updated_at: string;
  /** The state of its page now (tags.pageStates). */
  state: PageState;
  /** Its views over the list's period (`TagsPage.viewsPeriod`). */
  views: number;
}

export interface TagsPage {
  tags: readonly TagListItem[];
  folders: readonly FolderView[];
  /** The list's search, folder filter and order, as in the address. */
  filter: { q: string; folder: string; sort: TagOrder };
  paging: { page: number; perPage: number; total: number };
  /** The days the views count, `end` exclusive (the analytics default: the last 30, today included). */
  viewsPeriod: { start: string; end: string };
  notice?: string;
}

/** The query of the list's address for a filter, without defaults (they make no address longer). */
export function filterQuery(filter: TagsPage['filter']): Record<string, string> {
  const query: Record<string, string> = {};
  if (filter.q) query.q = filter.q;
  if (filter.folder) query.folder = filter.folder;
  if (filter.sort !== 'newest') query.sort = filter.sort;
  return query;
}

const VIEWS_HEADING = 'Views, 30 days';

function Visibility({ read }: { read: string }) {
  return <span class={`visibility visibility-${read}`}>{READ_LABELS[read] ?? read}</span>;
}

/**
 * The page's address as people read it (no scheme), a link to it, and a button copying it whole
 * (dashboard.js: the clipboard, or the text selected where that is refused).
 */
function Address({ tag }: { tag: TagListItem }) {
  const id = `url-${tag.id}`;
  return (
    <span class="address-copy">
      <a id={id} href={tag.url} data-copy-text={tag.url} target="_blank" rel="noopener">
        {/* A narrow column breaks it after the /t/, not inside the short id. */}
        <code>
          {tag.url.replace(/^https?:\/\//, '').slice(0, -tag.short_id.length)}
          <wbr />
          {tag.short_id}
        </code>
      </a>
      <CopyButton target={id} what={`the address of ${tag.title}`} />
    </span>
  );
}

function TagRow({ tag, folderName }: { tag: TagListItem; folderName: string | undefined }) {
  return (
    <tr>
      <th scope="row" data-label="Title">
        <a href={tagPath(tag)}>{tag.title}</a>
      </th>
      <td data-label="Address">
        <Address tag={tag} />
      </td>
      <td data-label="Status">
        <StateBadge state={tag.state} locked={tag.password_protected} />
      </td>
      <td data-label={VIEWS_HEADING} class="cell-number">
        {formatNumber(tag.views)}
      </td>
      <td data-label="Folder">{folderName ?? <span class="muted">None</span>}</td>
      <td data-label="Visibility">
        <Visibility read={tag.permissions.read} />
      </td>
      <td data-label="Updated">
        <When at={tag.updated_at} />
      </td>
    </tr>
  );
}

function Filters({ page }: { page: TagsPage }) {
  const { filter } = page;
  return (
    <form method="get" action="/dashboard/tags" class="filters" role="search" aria-label="Tags">
      <div class="field filter-search">
        <label for="filter-q">Search</label>
        <input id="filter-q" type="search" name="q" value={filter.q} placeholder="Title contains…" autocomplete="off" />
      </div>
      <div class="field">
        <label for="filter-folder">Folder</label>
        <select id="filter-folder" name="folder">
          {folderOptions(page.folders).map((option) => (
            <option key={option.value} value={option.value} selected={option.value === filter.folder}>
              {option.value ? option.label : 'All folders'}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-sort">Sort</label>
        <select id="filter-sort" name="sort">
          {TAG_ORDERS.map((order) => (
            <option key={order.value} value={order.value} selected={order.value === filter.sort}>
              {order.label}
            </option>
          ))}
        </select>
      </div>
      <div class="filter-actions">
        <button type="submit" class="button button-secondary">
          Apply
        </button>
      </div>
    </form>
  );
}

/** New Tag from a folder's list starts in that folder. */
const newTagPath = (folder: string) =>
  folder ? `/dashboard/tags/new?${new URLSearchParams({ folder }).toString()}` : '/dashboard/tags/new';

function Empty({ filtered }: { filtered: boolean }) {
  if (filtered) {
    return (
      <div class="empty">
        <p>No tags match this search.</p>
        <a class="button button-quiet" href="/dashboard/tags">
          Clear the search
        </a>
      </div>
    );
  }
  return (
    <div class="empty">
      <h2>No tags yet</h2>
      <p class="muted">A tag is a page with a short address and a QR code. Make your first one in a minute.</p>
      <a class="button button-primary" href="/dashboard/tags/new">
        New Tag
      </a>
    </div>
  );
}

/** /dashboard/tags: the user's tags, searched, filtered by folder, sorted, 50 a page. */
export function renderTags(context: PageContext & { user: SignedInUser }, page: TagsPage): string {
  const folderNames = new Map(page.folders.map((folder) => [folder.id, folder.name]));
  const query = filterQuery(page.filter);
  const filtered = Object.keys(query).some((key) => key !== 'sort');
  return renderAppPage(
    context,
    'Tags',
    <>
      <header class="page-header">
        <div>
          <h1>Tags</h1>
          <p class="lead">
            {showsTestData(context.workspaces)
              ? `Test tags, for trying tagsvc with test keys: each has its own page and QR code, and is deleted ${context.workspaces.testDataDays} days after it is made.`
              : 'Pages with a short address and a QR code, live at once unless you keep them as drafts or schedule them.'}
          </p>
        </div>
        <div class="actions page-actions">
          <a class="button button-quiet" href="/dashboard/folders">
            Folders
          </a>
          <a class="button button-quiet" href="/dashboard/tags/import">
            Import
          </a>
          <a class="button button-primary" href={newTagPath(page.filter.folder)}>
            New Tag
          </a>
        </div>
      </header>
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <section class="card" aria-labelledby="tags-heading">
        <h2 id="tags-heading" class="visually-hidden">
          Your tags
        </h2>
        {(page.paging.total > 0 || filtered) && <Filters page={page} />}
        {page.tags.length === 0 ? (
          <Empty filtered={filtered} />
        ) : (
          <>
            <DataTable label="Tags" headings={['Title', 'Address', 'Status', VIEWS_HEADING, 'Folder', 'Visibility', 'Updated']}>
              {page.tags.map((tag) => (
                <TagRow key={tag.id} tag={tag} folderName={tag.folder_id ? folderNames.get(tag.folder_id) : undefined} />
              ))}
            </DataTable>
            <p class="field-hint">{`Views: ${describePeriod(page.viewsPeriod)}, today included.`}</p>
          </>
        )}
        <Pager {...page.paging} path={withQuery('/dashboard/tags', query)} label="Pages of tags" />
      </section>
    </>,
  );
}

export interface NewTagPage {
  values: TagSettingsValues;
  errors: Record<string, string>;
  choices: TagSettingsChoices;
}

/** /dashboard/tags/new: the settings of a new tag; its blocks are added on its Edit page. */
export function renderNewTag(context: PageContext & { user: SignedInUser }, page: NewTagPage): string {
  return renderAppPage(
    context,
    'New Tag',
    <>
      <p class="breadcrumb">
        <a href="/dashboard/tags">Tags</a>
      </p>
      <h1>New Tag</h1>
      <ErrorSummary errors={page.errors} intro="No tag was created." order={TAG_SETTINGS_ORDER} />
      <section class="card form-narrow" aria-label="New tag">
        <form method="post" action="/dashboard/tags/new" class="stack">
          <CsrfField token={context.csrf} />
          <TagSettingsFields values={page.values} errors={page.errors} choices={page.choices} />
          <p class="field-hint">You add the page’s content next, on the tag’s Edit page.</p>
          <SubmitOrCancel cancel="/dashboard/tags" />
        </form>
      </section>
    </>,
  );
}
