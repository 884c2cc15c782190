import type { SignedInUser } from '../../features/accounts/index.js';
import { isTransformable, type FileView, type StorageUsage } from '../../features/files/index.js';
import type { TagView } from '../../features/tags/index.js';
import { Alert, ConfirmButton, CsrfField, ErrorSummary, Field, TextAreaField, SubmitOrCancel } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable, formatNumber, Pager, When } from '../components/table.js';
import { TagHeader, tagPath } from '../tags/tag-header.js';
import type { UserTag } from '../tags/user-tag.js';

export interface FilesPage {
  tag: UserTag;
  files: readonly FileView[];
  storage: StorageUsage;
  /** The service's refusal of a file over the plan maximum, for files.js to show before sending one. */
  tooLarge: string;
  paging: { page: number; perPage: number; total: number };
  notice?: string;
  /** Why the plain form's upload was refused (the service's message). */
  uploadError?: string;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** A size as people read it: `512 B`, `1.2 MB`, `1 GB` (units of 1024, as the plans are written). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  // 1023.6 MB rounds to the next unit, not to "1024 MB".
  if (shown >= 1024 && unit < UNITS.length - 1) return `1 ${UNITS[unit + 1]}`;
  return `${shown} ${UNITS[unit]}`;
}

/** A file's own address on the dashboard (download, thumbnail, edit, delete). */
function fileAddress(tag: TagView, file: Pick<FileView, 'id'>, action: string): string {
  return `${tagPath(tag, 'files')}/${encodeURIComponent(file.id)}/${action}`;
}

/** The extension or subtype, as a short label on files without a preview (`PDF`, `ZIP`). */
function typeLabel(file: FileView): string {
  const ext = /\.([a-z0-9]{1,5})$/i.exec(file.name)?.[1] ?? file.mime_type.split('/')[1] ?? 'file';
  return ext.slice(0, 4).toUpperCase();
}

function StorageMeter({ storage }: { storage: StorageUsage }) {
  const share = storage.limitBytes > 0 ? storage.usedBytes / storage.limitBytes : 1;
  return (
    <section class="card storage" id="storage-card" aria-labelledby="storage-heading">
      <h2 id="storage-heading">Storage</h2>
      <p class="storage-figure">
        <strong>{formatBytes(storage.usedBytes)}</strong> of {formatBytes(storage.limitBytes)} used
      </p>
      <meter
        class="storage-meter"
        min={0}
        max={storage.limitBytes}
        value={storage.usedBytes}
        // Past three quarters the bar warns; past nine tenths it is the error colour.
        low={storage.limitBytes * 0.75}
        high={storage.limitBytes * 0.9}
        optimum={0}
        aria-labelledby="storage-heading"
      >
        {`${Math.round(share * 100)} %`}
      </meter>
      <p class="field-hint">
        Up to {formatBytes(storage.maxFileBytes)} per file. Storage is shared by all your tags; deleting a file frees its space.
      </p>
    </section>
  );
}

/**
 * The upload form: a plain multipart form (one file, without scripts); files.js makes the drop
 * zone take several files at once and sends each with its own progress bar.
 */
function UploadForm({ csrf, page }: { csrf: string; page: FilesPage }) {
  const { tag, storage } = page;
  return (
    <section class="card" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload</h2>
      {page.uploadError && <Alert kind="error">{`Not uploaded: ${page.uploadError}`}</Alert>}
      <form
        method="post"
        action={tagPath(tag, 'files')}
        enctype="multipart/form-data"
        class="upload-form"
        data-upload=""
        data-max-bytes={String(storage.maxFileBytes)}
        data-too-large={page.tooLarge}
      >
        {/* The token comes first: the server checks it before it reads the file. */}
        <CsrfField token={csrf} />
        <label class="drop-zone" for="upload-file">
          <span class="drop-icon" aria-hidden="true"></span>
          <span class="drop-title">
            <span class="drop-when-ready">Drop files here or </span>
            <span class="drop-link">choose a file</span>
          </span>
          <span class="drop-hint">{`Images, documents, archives and more, up to ${formatBytes(storage.maxFileBytes)} each.`}</span>
        </label>
        <input id="upload-file" class="upload-input" type="file" name="file" required aria-describedby="upload-hint" />
        <p class="visually-hidden" id="upload-hint">
          {`Up to ${formatBytes(storage.maxFileBytes)} per file.`}
        </p>
        <div class="actions upload-submit">
          <button type="submit" class="button button-primary">
            Upload
          </button>
        </div>
      </form>
      <ul class="upload-list" id="upload-list" aria-live="polite" aria-label="Uploads"></ul>
    </section>
  );
}

function Preview({ tag, file }: { tag: TagView; file: FileView }) {
  if (isTransformable(file.mime_type)) {
    return (
      <img class="file-thumb" src={fileAddress(tag, file, 'thumbnail')} alt="" width={48} height={48} loading="lazy" decoding="async" />
    );
  }
  return (
    <span class="file-thumb file-type" aria-hidden="true">
      {typeLabel(file)}
    </span>
  );
}

function FileRow({ csrf, tag, file }: { csrf: string; tag: TagView; file: FileView }) {
  return (
    <tr>
      <td data-label="Preview" class="cell-preview">
        <Preview tag={tag} file={file} />
      </td>
      <th scope="row" data-label="Name">
        <span class="file-name">{file.name}</span>
        {file.description && <span class="file-description muted">{file.description}</span>}
      </th>
      <td data-label="Type">
        <code>{file.mime_type}</code>
      </td>
      <td data-label="Size" class="cell-size">
        {formatBytes(file.size)}
      </td>
      <td data-label="Uploaded">
        <When at={file.created_at} />
      </td>
      <td data-label="Actions" class="cell-actions">
        <div class="row-actions row-actions-inline">
          <a class="button button-quiet" href={fileAddress(tag, file, 'download')} download={file.name}>
            Download
          </a>
          <a class="button button-quiet" href={fileAddress(tag, file, 'edit')}>
            Edit
          </a>
          <ConfirmButton
            csrf={csrf}
            action={fileAddress(tag, file, 'delete')}
            question={`Delete “${file.name}”? This cannot be undone.`}
            label="Delete"
            danger
          />
        </div>
      </td>
    </tr>
  );
}

function FilesTable({ csrf, page }: { csrf: string; page: FilesPage }) {
  return (
    <section class="card" id="files-card" aria-labelledby="files-heading">
      <h2 id="files-heading">{page.paging.total === 1 ? '1 file' : `${formatNumber(page.paging.total)} files`}</h2>
      {page.files.length === 0 ? (
        <p class="muted empty">No files yet. Upload one above: it is listed here with a preview for images.</p>
      ) : (
        <DataTable label="Files" headings={['Preview', 'Name', 'Type', 'Size', 'Uploaded', 'Actions']}>
          {page.files.map((file) => (
            <FileRow key={file.id} csrf={csrf} tag={page.tag} file={file} />
          ))}
        </DataTable>
      )}
      <Pager {...page.paging} path={tagPath(page.tag, 'files')} label="Pages of files" />
    </section>
  );
}

/** /dashboard/tags/{id}/files: upload, the storage meter, and the tag's files. */
export function renderFiles(context: PageContext & { user: SignedInUser }, page: FilesPage): string {
  return renderAppPage(
    context,
    `Files · ${page.tag.title}`,
    <>
      <TagHeader tag={page.tag} current="files" />
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <div class="stack-cards">
        <div class="grid grid-wide-first">
          <UploadForm csrf={context.csrf} page={page} />
          <StorageMeter storage={page.storage} />
        </div>
        <FilesTable csrf={context.csrf} page={page} />
      </div>
    </>,
    { scripts: ['files.js'] },
  );
}

export interface FileEditForm {
  file: { id: string; name: string; mime_type: string; size: number };
  values: { name: string; description: string };
  errors: Record<string, string>;
}

/** /dashboard/tags/{id}/files/{file}/edit: a file's name and description. */
export function renderFileEdit(context: PageContext & { user: SignedInUser }, tag: UserTag, form: FileEditForm): string {
  const { file, values, errors } = form;
  return renderAppPage(
    context,
    `Edit ${file.name}`,
    <>
      <TagHeader tag={tag} current="files" />
      <ErrorSummary errors={errors} order={['name', 'description']} />
      <section class="card" aria-labelledby="edit-file-heading">
        <h2 id="edit-file-heading">{`Edit “${file.name}”`}</h2>
        <p class="muted">{`${file.mime_type} · ${formatBytes(file.size)}`}</p>
        <form method="post" action={fileAddress(tag, file, 'edit')} class="stack form-narrow">
          <CsrfField token={context.csrf} />
          <Field name="name" label="Name" autocomplete="off" value={values.name} hint="The name downloads get." error={errors.name} />
          <TextAreaField
            name="description"
            label="Description"
            value={values.description}
            hint="Optional. What the file is, for you and the API."
            error={errors.description}
          />
          <SubmitOrCancel cancel={tagPath(tag, 'files')} />
        </form>
      </section>
    </>,
  );
}
