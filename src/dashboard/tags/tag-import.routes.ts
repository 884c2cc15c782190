import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { createTags, findBatchProblems } from '../../features/tags/index.js';
import { ApiError } from '../../errors.js';
import { field, html, pageContext, signedInUser, sentence, type Screen } from '../screen.js';
import { securityHeaders } from '../security.js';
import { renderTagImport, type ImportResult } from './tag-import.js';
import { EXAMPLE_CSV, MAX_IMPORT_BYTES, readImportFile, type ImportProblem } from './tag-import-file.js';

/** CSV columns named differently from the API field a service error names. */
const CSV_FIELD_NAMES: Record<string, string> = { 'permissions.read': 'read', 'permissions.write': 'write' };

/** The service's refusal of batch item `index` as the problem of file row `row`, in the file's own names. */
function serviceProblem(kind: 'csv' | 'json', row: number, index: number, error: ApiError): ImportProblem {
  const prefix = `tags[${index}].`;
  const name = error.details.field?.replace(prefix, '');
  const text = error.message.replaceAll(prefix, '');
  // "title must not be empty" → "Must not be empty." (the field has a column of its own).
  const message = name && text.startsWith(`${name} `) ? text.slice(name.length + 1) : text;
  return {
    row,
    field: kind === 'csv' && name ? (CSV_FIELD_NAMES[name] ?? name) : name,
    message: sentence(message),
  };
}

/** The uploaded file's bytes (multipart `keyValues` puts a file part's content in the body as a Buffer). */
function uploaded(body: unknown): Buffer | undefined {
  const value = (body as Record<string, unknown> | undefined)?.file;
  return Buffer.isBuffer(value) && value.length > 0 ? value : undefined;
}

/**
 * /dashboard/tags/import: many tags at once from a CSV or JSON file (or pasted text), as one
 * batch of the API (createTags: all or nothing). Every row's problems are listed at once,
 * and then nothing is created.
 */
export const tagImportScreen: Screen = (app, context) => {
  const importPage = (request: FastifyRequest, reply: FastifyReply, user: SignedInUser, result?: ImportResult, status = 200) =>
    html(reply, status, renderTagImport({ ...pageContext(context, request), user }, result));

  app.get('/tags/import', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return importPage(request, reply, user);
  });

  app.get('/tags/import/example.csv', { schema: { hide: true } }, async (request, reply) => {
    return securityHeaders(reply)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="tags-example.csv"')
      .send(EXAMPLE_CSV);
  });

  // The upload is multipart: the parser is registered in a scope of its own around this one route.
  // It reads the (bounded) body in preValidation, so the dashboard's CSRF check (preHandler)
  // sees the form token among the fields, as with every other form.
  app.register(async (scope) => {
    await scope.register(multipart, {
      attachFieldsToBody: 'keyValues',
      throwFileSizeLimit: false,
      // One byte over the limit tells a file that was cut from one that fits exactly.
      limits: { fileSize: MAX_IMPORT_BYTES + 1, fieldSize: MAX_IMPORT_BYTES + 1, files: 1, fields: 4 },
    });

    scope.post('/tags/import', { schema: { hide: true } }, async (request, reply) => {
      const user = signedInUser(request);
      const file = uploaded(request.body);
      const text = file ? file.toString('utf8') : field(request.body, 'text');
      // Pasted text goes back into its field with the answer, unless it is too large to.
      const pasted = file ? '' : text;
      const refuse = (fileError: string, keep = pasted) => importPage(request, reply, user, { fileError, text: keep }, 400);
      if (!text.trim()) return refuse('Choose a CSV or JSON file, or paste its text.');
      if ((file?.length ?? Buffer.byteLength(text)) > MAX_IMPORT_BYTES) {
        return refuse(`The file is over ${MAX_IMPORT_BYTES / 1024 / 1024} MB: split it into several files.`, '');
      }

      const read = readImportFile(text);
      if ('fileError' in read) return refuse(read.fileError);
      const actor = actorOfUser(user);
      const shaped = [...read.shaped];
      const serviceProblems = await findBatchProblems(context, actor, { tags: shaped.map((index) => read.inputs[index]!) });
      const problems = [
        ...read.problems,
        ...serviceProblems.map(({ index, error }) => serviceProblem(read.kind, read.rowNumbers[shaped[index]!]!, index, error)),
      ].sort((a, b) => a.row - b.row);
      if (problems.length > 0) return importPage(request, reply, user, { kind: read.kind, problems, text: pasted }, 400);

      try {
        const created = await createTags(context, actor, { tags: read.inputs });
        const tags = created.tags.map((tag, index) => ({ id: tag.id, title: read.inputs[index]!.title!.trim() }));
        return importPage(request, reply, user, { created: tags });
      } catch (error) {
        // Refused between the check and the write (a folder deleted meanwhile): still nothing written.
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return refuse(`Nothing was imported: ${error.message}.`);
      }
    });
  });
};
