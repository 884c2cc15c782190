import { parse as parseCsv } from 'csv-parse/sync';
import { Value } from 'typebox/value';
import { fieldWithNul } from '../../lib/text-fields.js';
import { TagBatchBody } from '../../http/schemas/tags.js';
import { MAX_BATCH_TAGS, READ_PERMISSIONS, WRITE_PERMISSIONS, type TagInput } from '../../features/tags/index.js';

/**
 * Reading an import file into the API's batch items, shape first: what the batch endpoint's
 * schema would refuse is found here, row by row; the tags service judges the rest.
 */

/** The largest file (or pasted text) read: 100 tags with generous content fit with room to spare. */
export const MAX_IMPORT_BYTES = 1024 * 1024;
/** The batch endpoint's limit, from its schema: one import is one batch, all or nothing. */
export const MAX_IMPORT_TAGS = MAX_BATCH_TAGS;

export const CSV_COLUMNS = ['title', 'content', 'folder_id', 'read', 'write', 'access_logging'] as const;

/** A problem of one row (CSV: numbered as in a spreadsheet, the header is row 1; JSON: item 1 is the first). */
export interface ImportProblem {
  row: number;
  field?: string;
  message: string;
}

export type ImportFile =
  | {
      kind: 'csv' | 'json';
      inputs: TagInput[];
      rowNumbers: number[];
      problems: ImportProblem[];
      /** The items of the API's shape (safe to hand the service's check), by index. */
      shaped: Set<number>;
    }
  | { kind: 'csv' | 'json'; fileError: string };

const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);

/** JSON when the text starts like JSON (a CSV starts with its header, `title` among it); else CSV. */
export function readImportFile(text: string): ImportFile {
  const read = /^\uFEFF?\s*[[{]/.test(text) ? readJson(text.replace(/^\uFEFF/, '')) : readCsv(text);
  if ('fileError' in read) return read;
  // No text field takes NUL (PostgreSQL refuses it): found here, before any query.
  read.inputs.forEach((input, index) => {
    const field = fieldWithNul(input);
    if (field === undefined) return;
    read.problems.push({ row: read.rowNumbers[index]!, field, message: 'Must not contain NUL characters.' });
    read.shaped.delete(index);
  });
  return read;
}

function readCsv(text: string): ImportFile {
  let records: string[][];
  try {
    records = parseCsv(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  } catch (error) {
    return { kind: 'csv', fileError: `The CSV could not be read: ${(error as Error).message}.` };
  }
  const [header, ...rows] = records;
  if (!header) return { kind: 'csv', fileError: 'The file is empty.' };
  const columns = header.map((name) => name.trim().toLowerCase());
  const unknown = columns.filter((name) => !(CSV_COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0 || !columns.includes('title')) {
    const found = unknown.length ? `Unknown column “${unknown[0]}”. ` : 'The first line must name the columns, title among them. ';
    return { kind: 'csv', fileError: `${found}Columns: ${CSV_COLUMNS.join(', ')}.` };
  }
  const duplicate = columns.find((name, index) => columns.indexOf(name) !== index);
  if (duplicate) return { kind: 'csv', fileError: `The column “${duplicate}” is named twice.` };
  const tooMany = tooManyTags(rows.length, 'csv');
  if (tooMany) return tooMany;

  const problems: ImportProblem[] = [];
  const inputs = rows.map((cells, index) => {
    const row = index + 2;
    if (cells.length > columns.length) {
      problems.push({ row, message: `The row has ${cells.length} cells; the header names ${columns.length} columns.` });
    }
    const cell = (name: string) => (columns.indexOf(name) >= 0 ? (cells[columns.indexOf(name)] ?? '') : '');
    return csvRowInput(cell, (field, message) => problems.push({ row, field, message }));
  });
  // A row's bad cells were left out of its item: every item is of the API's shape.
  return { kind: 'csv', inputs, rowNumbers: rows.map((_, index) => index + 2), problems, shaped: new Set(inputs.keys()) };
}

/** One CSV row as a batch item; empty cells are left out (the API's defaults apply). */
function csvRowInput(cell: (name: string) => string, problem: (field: string, message: string) => void): TagInput {
  const input: TagInput = { title: cell('title') };
  if (cell('content').trim()) input.content = cell('content');
  if (cell('folder_id').trim()) input.folder_id = cell('folder_id').trim();
  const read = choice(cell('read'), READ_PERMISSIONS, (message) => problem('read', message));
  const write = choice(cell('write'), WRITE_PERMISSIONS, (message) => problem('write', message));
  if (read || write) {
    input.permissions = {
      ...(read ? { read } : {}),
      ...(write ? { write } : {}),
    };
  }
  const logging = cell('access_logging').trim().toLowerCase();
  if (TRUE_WORDS.has(logging)) input.access_logging = true;
  else if (FALSE_WORDS.has(logging)) input.access_logging = false;
  else if (logging) problem('access_logging', 'Must be true or false (or yes/no, 1/0), or empty.');
  return input;
}

/** A cell naming one of `values` (any case), or undefined when empty or not one of them (a problem). */
function choice<T extends string>(text: string, values: readonly T[], problem: (message: string) => void): T | undefined {
  const value = text.trim().toLowerCase();
  if (!value) return undefined;
  if ((values as readonly string[]).includes(value)) return value as T;
  problem(`Must be one of ${values.join(', ')}.`);
  return undefined;
}

function tooManyTags(count: number, kind: 'csv' | 'json'): ImportFile | undefined {
  if (count === 0) return { kind, fileError: kind === 'csv' ? 'The file has a header but no rows.' : 'The file holds no tags.' };
  if (count > MAX_IMPORT_TAGS) {
    return { kind, fileError: `The file holds ${count} tags; one import takes at most ${MAX_IMPORT_TAGS}. Split it into several files.` };
  }
  return undefined;
}

/** The API's batch body, `{"tags": [...]}`, or just the array; checked against the endpoint's schema. */
function readJson(text: string): ImportFile {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return { kind: 'json', fileError: `The file is not valid JSON: ${(error as Error).message}.` };
  }
  if (Array.isArray(body)) body = { tags: body };
  const items = (body as { tags?: unknown } | null)?.tags;
  if (!Array.isArray(items)) return { kind: 'json', fileError: 'The JSON must be an array of tags or an object {"tags": [...]}.' };
  const tooMany = tooManyTags(items.length, 'json');
  if (tooMany) return tooMany;

  const problems: ImportProblem[] = [];
  for (const error of Value.Errors(TagBatchBody, body)) {
    const [, , index, ...path] = error.instancePath.split('/');
    if (index === undefined) return { kind: 'json', fileError: 'The JSON object may hold only "tags", an array of tags.' };
    const problem = jsonProblem(path.join('.'), error);
    const row = Number(index) + 1;
    if (problem && !problems.some((p) => p.row === row && p.field === problem.field)) problems.push({ row, ...problem });
  }
  const rowNumbers = items.map((_, index) => index + 1);
  const shaped = new Set([...items.keys()].filter((index) => !problems.some((p) => p.row === rowNumbers[index])));
  return { kind: 'json', inputs: items as TagInput[], rowNumbers, problems, shaped };
}

interface SchemaError {
  keyword: string;
  message: string;
  params: unknown;
}

/** A schema error as the row's problem; the `boolean` twin of an unknown field is left out. */
function jsonProblem(path: string, error: SchemaError): Omit<ImportProblem, 'row'> | undefined {
  const params = error.params as { requiredProperties?: string[]; additionalProperties?: string[]; allowedValues?: unknown[] };
  if (error.keyword === 'boolean') return undefined;
  if (error.keyword === 'required') return { field: params.requiredProperties![0], message: 'Required.' };
  if (error.keyword === 'additionalProperties') return { field: params.additionalProperties![0], message: 'Not a field of a tag.' };
  if (!path) return { message: 'Each tag must be an object.' };
  if (error.keyword === 'enum') return { field: path, message: `Must be one of ${params.allowedValues!.join(', ')}.` };
  return { field: path, message: `${error.message[0]!.toUpperCase()}${error.message.slice(1)}.` };
}

/** An example CSV, offered for download on the import page. */
export const EXAMPLE_CSV = [
  'title,content,folder_id,read,write,access_logging',
  'Welcome desk,"<h2>Welcome</h2><p>Ask us anything.</p>",,public,owner,false',
  'Room 101,Projector and 12 seats.,,public,owner,true',
  'Staff notes,"<p>Wi-Fi: <strong>guest</strong></p>",,private,owner,',
  '',
].join('\r\n');
