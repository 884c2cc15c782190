import type { SignedInUser } from '../../features/accounts/index.js';
import { CSV_COLUMNS, MAX_IMPORT_BYTES, MAX_IMPORT_TAGS, type ImportProblem } from './tag-import-file.js';
import { Alert, CsrfField, SubmitButton, TextAreaField } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { DataTable } from '../components/table.js';
import { tagPath } from './tag-header.js';

/** What an import did: created tags, or why it created none (the whole file, or rows). */
export type ImportResult =
  | { created: ReadonlyArray<{ id: string; title: string }> }
  | { fileError: string; text: string }
  | { kind: 'csv' | 'json'; problems: readonly ImportProblem[]; text: string };

const COLUMN_HELP: Record<(typeof CSV_COLUMNS)[number], { meaning: string; example: string }> = {
  title: { meaning: 'Required. 1–255 characters.', example: 'Welcome desk' },
  content: {
    meaning: 'Optional. Text or HTML, sanitized and kept as one HTML block, as the API does.',
    example: '<p>Ask us anything.</p>',
  },
  folder_id: { meaning: 'Optional. One of your folders (fld_…); empty for none.', example: 'fld_…' },
  read: { meaning: 'Optional. Who may view the page: public (default) or private.', example: 'public' },
  write: { meaning: 'Optional. Who may change the tag: owner (default).', example: 'owner' },
  access_logging: { meaning: 'Optional. Keep an access log: true or false (default); yes/no and 1/0 work too.', example: 'false' },
};

/** A batch body, one tag a line (readable, and the same JSON). */
const JSON_EXAMPLE = `{
  "tags": [
    { "title": "Welcome desk", "content": "<p>Ask us anything.</p>" },
    { "title": "Room 101", "content": [{ "type": "text", "content": "12 seats." }], "access_logging": true }
  ]
}`;

function Created({ tags }: { tags: ReadonlyArray<{ id: string; title: string }> }) {
  return (
    <section class="card" aria-labelledby="created-heading">
      <Alert kind="success">{tags.length === 1 ? '1 tag created.' : `${tags.length} tags created.`}</Alert>
      <h2 id="created-heading">Created tags</h2>
      <ul class="created-list">
        {tags.map((tag) => (
          <li key={tag.id}>
            <a href={tagPath(tag)}>{tag.title}</a> <code class="muted">{tag.id}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Problems({ kind, problems }: { kind: 'csv' | 'json'; problems: readonly ImportProblem[] }) {
  const rows = new Set(problems.map((problem) => problem.row)).size;
  const unit = kind === 'csv' ? 'Row' : 'Item';
  return (
    <section class="card" aria-labelledby="problems-heading">
      <Alert kind="error">
        Nothing was imported: {rows === 1 ? `1 ${unit.toLowerCase()} has` : `${rows} ${unit.toLowerCase()}s have`} problems. Correct the
        file and import it again; all its tags are created together or none.
      </Alert>
      <h2 id="problems-heading">Problems</h2>
      {kind === 'csv' && <p class="field-hint">Rows are numbered as in a spreadsheet: the header is row 1.</p>}
      <DataTable label="Problems" headings={[unit, 'Field', 'Problem']}>
        {problems.map((problem, index) => (
          <tr key={index}>
            <th scope="row" data-label={unit}>
              {problem.row}
            </th>
            <td data-label="Field">{problem.field ? <code>{problem.field}</code> : <span class="muted">—</span>}</td>
            <td data-label="Problem">{problem.message}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function UploadForm({ csrf, result }: { csrf: string; result?: ImportResult }) {
  const fileError = result && 'fileError' in result ? result.fileError : undefined;
  const text = result && 'text' in result ? result.text : '';
  return (
    <section class="card" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Import a file</h2>
      <form method="post" action="/dashboard/tags/import" enctype="multipart/form-data" class="stack">
        <CsrfField token={csrf} />
        <div class={fileError ? 'field field-invalid' : 'field'}>
          <label for="field-file">CSV or JSON file</label>
          <input
            id="field-file"
            name="file"
            type="file"
            accept=".csv,.json,text/csv,application/json"
            aria-invalid={fileError ? 'true' : undefined}
            aria-describedby={fileError ? 'field-file-hint field-file-error' : 'field-file-hint'}
          />
          <p
            class="field-hint"
            id="field-file-hint"
          >{`Up to ${MAX_IMPORT_TAGS} tags and ${MAX_IMPORT_BYTES / 1024 / 1024} MB per file.`}</p>
          {fileError && (
            <p class="field-error" id="field-file-error">
              {fileError}
            </p>
          )}
        </div>
        <TextAreaField name="text" label="Or paste CSV or JSON" value={text} hint="Used when no file is chosen." />
        <div class="actions">
          <SubmitButton>Import Tags</SubmitButton>
        </div>
      </form>
    </section>
  );
}

function HowItWorks() {
  return (
    <section class="card" aria-labelledby="how-heading">
      <h2 id="how-heading">How it works</h2>
      <ul class="how-list">
        <li>
          <strong>{`Up to ${MAX_IMPORT_TAGS} tags and ${MAX_IMPORT_BYTES / 1024 / 1024} MB`}</strong> per file, as CSV or as the API’s JSON
          batch body.
        </li>
        <li>
          <strong>All or nothing.</strong> Every row is checked first; if any has a problem, none is created and each problem is listed with
          its row.
        </li>
        <li>
          <strong>Start from the example</strong>: <a href="/dashboard/tags/import/example.csv">tags-example.csv</a> opens in any
          spreadsheet.
        </li>
      </ul>
    </section>
  );
}

function FormatHelp() {
  return (
    <section class="card" aria-labelledby="format-heading">
      <div class="card-head">
        <h2 id="format-heading">File format</h2>
        <a class="button button-quiet" href="/dashboard/tags/import/example.csv" download>
          Download example CSV
        </a>
      </div>
      <p>
        <strong>CSV:</strong> a header line naming the columns (any order; only <code>title</code> is required), then one tag per row. Empty
        cells take the API’s defaults.
      </p>
      <DataTable label="Columns" headings={['Column', 'Meaning', 'Example']}>
        {CSV_COLUMNS.map((column) => (
          <tr key={column}>
            <th scope="row" data-label="Column">
              <code>{column}</code>
            </th>
            <td data-label="Meaning">{COLUMN_HELP[column].meaning}</td>
            <td data-label="Example">
              <code>{COLUMN_HELP[column].example}</code>
            </td>
          </tr>
        ))}
      </DataTable>
      <p>
        <strong>JSON:</strong> the body of the API’s batch create, <code>POST /v1/tags/batch</code>: an object{' '}
        <code>{'{"tags": [...]}'}</code> or just the array, each tag shaped like the create body (content as HTML or as blocks).
      </p>
      <pre class="example" tabindex={0}>
        <code>{JSON_EXAMPLE}</code>
      </pre>
      <p class="field-hint">
        {`One import is one batch: at most ${MAX_IMPORT_TAGS} tags, created all together or, when any row has a problem, none at all.`}
      </p>
    </section>
  );
}

/** /dashboard/tags/import: the upload form, the result of the last import, and the file format. */
export function renderTagImport(context: PageContext & { user: SignedInUser }, result?: ImportResult): string {
  return renderAppPage(
    { ...context, path: '/dashboard/tags/import' },
    'Import tags',
    <>
      <header class="page-head">
        <p class="breadcrumb">
          <a href="/dashboard/tags">Tags</a>
        </p>
        <h1>Import tags</h1>
        <p class="lead">Create many tags at once from a CSV or JSON file.</p>
      </header>
      {result && 'created' in result && <Created tags={result.created} />}
      {result && 'problems' in result && <Problems kind={result.kind} problems={result.problems} />}
      <div class="grid grid-wide-first">
        <UploadForm csrf={context.csrf} result={result} />
        <HowItWorks />
      </div>
      <FormatHelp />
    </>,
  );
}
