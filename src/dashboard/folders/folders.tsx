import type { SignedInUser } from '../../features/accounts/index.js';
import type { FolderView } from '../../features/folders/index.js';
import { Alert, ConfirmButton, CsrfField, ErrorSummary, Field, SelectField, SubmitButton, type Option } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, formatNumber, Pager, When } from '../components/table.js';

type Context = PageContext & { user: SignedInUser };

/** What the folder form sent: a name and a parent folder id ('' for the top level). */
export interface FolderFormValues {
  name: string;
  parent_id: string;
}

type FolderForm = { values: FolderFormValues; errors: Record<string, string> };

export interface FoldersPage {
  folders: readonly FolderView[];
  /** Tags per folder id; a folder absent holds none. */
  counts: ReadonlyMap<string, number>;
  notice?: string;
  form?: FolderForm;
}

interface TagItem {
  id: string;
  title: string;
  folder_id: string | null;
  updated_at: string;
}

/** One tag of "Move tags here": moved (its title), or refused (the reason). */
export type MoveResult = { id: string; title: string; error?: undefined } | { id: string; error: string };

export interface FolderPage {
  folder: FolderView;
  folders: readonly FolderView[];
  tags: readonly TagItem[];
  paging: { page: number; perPage: number; total: number };
  /** The title search of "Move tags here", and the tags it found outside this folder. */
  search: string;
  candidates: readonly TagItem[];
  /** Whether the search found more tags than are listed. */
  moreCandidates: boolean;
  notice?: string;
  form?: FolderForm;
  /** Why the service refused to delete the folder. */
  refused?: string;
  moved?: readonly MoveResult[];
  moveError?: string;
}

const folderHref = (id: string) => `/dashboard/folders/${encodeURIComponent(id)}`;
const tagsHref = (id: string) => `/dashboard/tags?folder=${encodeURIComponent(id)}`;

/** Each folder's full path ("Clients / Acme"), for choices where nesting must show. */
function folderPaths(folders: readonly FolderView[]): Map<string, string> {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const paths = new Map<string, string>();
  const pathOf = (folder: FolderView, seen: Set<string>): string => {
    const known = paths.get(folder.id);
    if (known) return known;
    const parent = folder.parent_id ? byId.get(folder.parent_id) : undefined;
    // The service refuses cycles; `seen` only keeps a damaged tree from looping here.
    const path = parent && !seen.has(parent.id) ? `${pathOf(parent, seen.add(folder.id))} / ${folder.name}` : folder.name;
    paths.set(folder.id, path);
    return path;
  };
  for (const folder of folders) pathOf(folder, new Set());
  return paths;
}

/** Choices of a folder: `none` first, then every folder by path (minus `except`). */
function folderOptions(folders: readonly FolderView[], none: string, except?: string): Option[] {
  const paths = folderPaths(folders);
  const options = folders
    .filter((folder) => folder.id !== except)
    .map((folder) => ({ value: folder.id, label: paths.get(folder.id)! }))
    .sort((a, b) => a.label.localeCompare(b.label));
  return [{ value: '', label: none }, ...options];
}

function TagCount({ count }: { count: number }) {
  return <span class="count-badge">{count === 1 ? '1 tag' : `${formatNumber(count)} tags`}</span>;
}

/** The folders under `parent` (null: the top level), each with its own subtree. */
function FolderTree({
  folders,
  counts,
  parent,
}: {
  folders: readonly FolderView[];
  counts: ReadonlyMap<string, number>;
  parent: string | null;
}) {
  const children = folders.filter((folder) => folder.parent_id === parent).sort((a, b) => a.name.localeCompare(b.name));
  if (children.length === 0) return null;
  return (
    <ul class={parent ? 'folder-tree' : 'folder-tree folder-tree-root'}>
      {children.map((folder) => (
        <li key={folder.id}>
          <div class="folder-row">
            <a class="folder-name" href={folderHref(folder.id)}>
              <span class="folder-icon" aria-hidden="true"></span>
              {folder.name}
            </a>
            <TagCount count={counts.get(folder.id) ?? 0} />
            <a class="folder-link" href={tagsHref(folder.id)}>
              View tags<span class="visually-hidden">{` in ${folder.name}`}</span>
            </a>
          </div>
          <FolderTree folders={folders} counts={counts} parent={folder.id} />
        </li>
      ))}
    </ul>
  );
}

/** The fields of FolderFields, in the page's order. */
const FOLDER_FIELD_ORDER = ['name', 'parent_id'];

function FolderFields({ form, folders, except }: { form: FolderForm; folders: readonly FolderView[]; except?: string }) {
  return (
    <>
      <Field name="name" label="Name" autocomplete="off" value={form.values.name} error={form.errors.name} />
      <SelectField
        name="parent_id"
        label="Inside"
        value={form.values.parent_id}
        options={folderOptions(folders, 'No folder (top level)', except)}
        error={form.errors.parent_id}
      />
    </>
  );
}

const EMPTY_FORM: FolderForm = { values: { name: '', parent_id: '' }, errors: {} };

function PageHead({ title, lead, back }: { title: string; lead: string; back: { href: string; label: string } }) {
  return (
    <header class="page-head">
      <p class="breadcrumb">
        <a href={back.href}>{back.label}</a>
      </p>
      <h1>{title}</h1>
      <p class="lead">{lead}</p>
    </header>
  );
}

/** /dashboard/folders: the tree of the user's folders and the form of a new one. */
export function renderFolders(context: Context, page: FoldersPage): string {
  const form = page.form ?? EMPTY_FORM;
  return renderAppPage(
    context,
    'Folders',
    <>
      <PageHead
        title="Folders"
        lead="Group your tags in folders, nested as deep as you like. A tag is in one folder at most."
        back={{ href: '/dashboard/tags', label: 'Tags' }}
      />
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      {page.form && <ErrorSummary errors={page.form.errors} intro="No folder was created." order={FOLDER_FIELD_ORDER} />}
      <div class="grid grid-wide-first">
        <section class="card" aria-labelledby="folders-heading">
          <h2 id="folders-heading">Your folders</h2>
          {page.folders.length === 0 ? (
            <p class="muted">No folders yet. Create one to start grouping tags.</p>
          ) : (
            <FolderTree folders={page.folders} counts={page.counts} parent={null} />
          )}
        </section>
        <section class="card" aria-labelledby="new-folder-heading">
          <h2 id="new-folder-heading">New folder</h2>
          <form method="post" action="/dashboard/folders" class="stack">
            <CsrfField token={context.csrf} />
            <FolderFields form={form} folders={page.folders} />
            <div class="actions">
              <SubmitButton>Create Folder</SubmitButton>
            </div>
          </form>
        </section>
      </div>
    </>,
  );
}

/** A tag of the folder with the form that moves it out (no folder, or another one). */
function TagRow({ csrf, page, tag }: { csrf: string; page: FolderPage; tag: TagItem }) {
  return (
    <tr>
      <th scope="row" data-label="Title">
        <a href={`/dashboard/tags/${encodeURIComponent(tag.id)}`}>{tag.title}</a>
      </th>
      <td data-label="Updated">
        <When at={tag.updated_at} />
      </td>
      <td data-label="Move to" class="cell-actions">
        <form method="post" action={`${folderHref(page.folder.id)}/tags/${encodeURIComponent(tag.id)}/move`} class="inline-form move-form">
          <CsrfField token={csrf} />
          <SelectField
            name="folder_id"
            id={`move-${tag.id}`}
            label={`Move “${tag.title}” to`}
            hideLabel
            options={folderOptions(page.folders, 'No folder', page.folder.id)}
          />
          <button type="submit" class="button button-quiet">
            Move
          </button>
        </form>
      </td>
    </tr>
  );
}

function MoveResults({ results }: { results: readonly MoveResult[] }) {
  const moved = results.filter((result) => !result.error);
  const refused = results.filter((result) => result.error);
  return (
    <>
      {moved.length > 0 && <Alert kind="success">{moved.length === 1 ? '1 tag moved here.' : `${moved.length} tags moved here.`}</Alert>}
      {refused.length > 0 && (
        <Alert kind="error">
          <p>{refused.length === 1 ? '1 tag was not moved:' : `${refused.length} tags were not moved:`}</p>
          <ul>
            {refused.map((result) => (
              <li key={result.id}>
                <code>{result.id}</code>: {result.error}
              </li>
            ))}
          </ul>
        </Alert>
      )}
    </>
  );
}

/** "Move tags here": a title search, then the found tags to tick. */
function MoveHere({ csrf, page }: { csrf: string; page: FolderPage }) {
  const action = `${folderHref(page.folder.id)}/tags`;
  return (
    <section class="card" aria-labelledby="move-heading">
      <h2 id="move-heading">Move tags here</h2>
      <form method="get" action={folderHref(page.folder.id)} class="search-form" role="search">
        <label for="move-search">Search tags by title</label>
        <div class="search-row">
          <input id="move-search" name="q" type="search" value={page.search} autocomplete="off" />
          <button type="submit" class="button button-secondary">
            Search
          </button>
        </div>
      </form>
      {page.candidates.length === 0 ? (
        <p class="muted">
          {page.search
            ? `No other tag’s title contains “${page.search}”.`
            : page.paging.total > 0
              ? 'Every tag is in this folder already.'
              : 'You have no tags yet.'}
        </p>
      ) : (
        <form method="post" action={action} class="stack">
          <CsrfField token={csrf} />
          <fieldset
            class={page.moveError ? 'field checkboxes field-invalid' : 'field checkboxes'}
            aria-describedby={page.moveError ? 'move-error' : undefined}
          >
            <legend>{page.search ? `Tags whose title contains “${page.search}”` : 'Tags in other folders or none'}</legend>
            <ul class="candidate-list">
              {page.candidates.map((tag) => (
                <li key={tag.id}>
                  <label class="checkbox">
                    <input type="checkbox" name="tag" value={tag.id} />
                    <span>{tag.title}</span>
                  </label>
                  <span class="muted">{tag.folder_id ? 'in another folder' : 'no folder'}</span>
                </li>
              ))}
            </ul>
            {page.moreCandidates && (
              <p class="field-hint">{`The first ${page.candidates.length} are listed: search to narrow them down.`}</p>
            )}
            {page.moveError && (
              <p class="field-error" id="move-error">
                {page.moveError}
              </p>
            )}
          </fieldset>
          <div class="actions">
            <SubmitButton>Move Selected Here</SubmitButton>
          </div>
        </form>
      )}
    </section>
  );
}

/** /dashboard/folders/{id}: the folder's tags, moving tags in and out, its settings and Delete. */
export function renderFolder(context: Context, page: FolderPage): string {
  const { folder } = page;
  const form = page.form ?? { values: { name: folder.name, parent_id: folder.parent_id ?? '' }, errors: {} };
  const paths = folderPaths(page.folders);
  return renderAppPage(
    context,
    folder.name,
    <>
      <PageHead
        title={folder.name}
        lead={
          paths.get(folder.id) === folder.name
            ? 'A top-level folder.'
            : `In ${paths.get(folder.id)!.split(' / ').slice(0, -1).join(' / ')}.`
        }
        back={{ href: '/dashboard/folders', label: 'Folders' }}
      />
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      {page.moved && <MoveResults results={page.moved} />}
      {page.refused && <Alert kind="error">{page.refused}</Alert>}
      {page.form && <ErrorSummary errors={page.form.errors} intro="The folder was not changed." order={FOLDER_FIELD_ORDER} />}
      {page.moveError && !page.candidates.length && <Alert kind="error">{page.moveError}</Alert>}
      <section class="card" aria-labelledby="folder-tags-heading">
        <div class="card-head">
          <h2 id="folder-tags-heading">Tags in this folder</h2>
          <a class="button button-quiet" href={tagsHref(folder.id)}>
            Open in Tags
          </a>
        </div>
        {page.tags.length === 0 ? (
          <p class="muted">No tags in this folder yet. Move some here below.</p>
        ) : (
          <DataTable label="Tags in this folder" headings={['Title', 'Updated', 'Move to']}>
            {page.tags.map((tag) => (
              <TagRow key={tag.id} csrf={context.csrf} page={page} tag={tag} />
            ))}
          </DataTable>
        )}
        <Pager {...page.paging} path={folderHref(folder.id)} label="Pages of tags" />
      </section>
      <div class="grid">
        <MoveHere csrf={context.csrf} page={page} />
        <section class="card" aria-labelledby="folder-settings-heading">
          <h2 id="folder-settings-heading">Folder settings</h2>
          <form method="post" action={folderHref(folder.id)} class="stack">
            <CsrfField token={context.csrf} />
            <FolderFields form={form} folders={page.folders} except={folder.id} />
            <div class="actions">
              <SubmitButton>Save Folder</SubmitButton>
            </div>
          </form>
          <div class="danger-zone">
            <h3>Delete folder</h3>
            <p class="muted">Only an empty folder can be deleted: move its tags and subfolders out first.</p>
            <ConfirmButton
              csrf={context.csrf}
              action={`${folderHref(folder.id)}/delete`}
              question={`Delete the folder “${folder.name}”? This cannot be undone.`}
              label="Delete Folder"
              danger
            />
          </div>
        </section>
      </div>
    </>,
  );
}
