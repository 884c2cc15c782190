import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { deleteFile, fileTooLarge, listFiles, requireFile, storageUsage, updateFile } from '../../features/files/index.js';
import { sendDownload, sendThumbnail } from '../../http/downloads.js';
import { multipartUploads, uploadFromRequest } from '../../http/uploads.js';
import { ApiError, forbidden, notFound } from '../../errors.js';
import {
  field,
  formTokenMatches,
  html,
  isConfirmed,
  pageContext,
  queryParam,
  readOwn,
  signedInUser,
  seeOther,
  submitForm,
  sentence,
  type Screen,
} from '../screen.js';
import { askFirst } from '../components/ask-first.js';
import { userTag, type UserTag } from '../tags/user-tag.js';
import { CSRF_FIELD } from '../components/forms.js';
import { renderFileEdit, renderFiles, type FileEditForm, type FilesPage } from './files.js';
import { tagPath } from '../tags/tag-header.js';

/** Files per page of the table. */
const FILES_PER_PAGE = 25;

const NOTICES: Record<string, string> = {
  uploaded: 'File uploaded.',
  saved: 'File saved.',
  deleted: 'File deleted.',
};

/** Why an upload was refused, as the form shows it: the service's own message (too large, type, storage). */
const UPLOAD_REFUSALS = new Set([
  'validation_error',
  'invalid_request',
  'file_too_large',
  'unsupported_file_type',
  'unsupported_media_type',
  'storage_limit_exceeded',
]);

const EDIT_FIELDS = ['name', 'description'];

type TagParams = { Params: { id: string } };
type FileParams = { Params: { id: string; fileId: string } };

/** Whether the request is the page script's upload (it asks for JSON), not the plain form. */
const wantsJson = (request: FastifyRequest) => (request.headers.accept ?? '').includes('application/json');

/**
 * /dashboard/tags/{id}/files: a tag's files. Uploads stream through the files feature's one
 * upload path (as POST /v1/tags/{id}/files does), from files.js with a progress bar per file or
 * from the plain form; each file can be previewed, renamed, described, downloaded and deleted.
 */
export const filesScreen: Screen = (app, context) => {
  const tagOf = (user: SignedInUser, id: string) => userTag(context, user, id);

  /** The user's file of this tag (404 for any other). */
  const fileOf = async (user: SignedInUser, tag: UserTag, fileId: string) => {
    const file = await readOwn(() => requireFile(context, actorOfUser(user), { id: fileId }));
    if (file.tag_id !== tag.id) throw notFound('File');
    return file;
  };

  const filesPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: SignedInUser,
    tag: UserTag,
    page: Partial<FilesPage>,
    status = 200,
  ) => {
    const actor = actorOfUser(user);
    const pageNumber = Math.max(1, Math.floor(Number(queryParam(request, 'page') ?? 1)) || 1);
    const [{ total, files }, storage] = await Promise.all([
      listFiles(context, actor, { tagId: tag.id, limit: FILES_PER_PAGE, offset: (pageNumber - 1) * FILES_PER_PAGE }),
      storageUsage(context, actor, { tagId: tag.id }),
    ]);
    const view = { ...pageContext(context, request), path: '/dashboard/tags', user };
    return html(
      reply,
      status,
      renderFiles(view, {
        tag,
        files,
        storage,
        tooLarge: sentence(fileTooLarge(storage.maxFileBytes).message),
        paging: { page: pageNumber, perPage: FILES_PER_PAGE, total },
        ...page,
      }),
    );
  };

  app.get<TagParams>('/tags/:id/files', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await tagOf(user, request.params.id);
    return filesPage(request, reply, user, tag, { notice: NOTICES[queryParam(request, 'done') ?? ''] });
  });

  // The upload has a multipart parser of its own; its limits are the plan's, set per request.
  app.register(async (uploads) => {
    await multipartUploads(uploads);
    uploads.post<TagParams>('/tags/:id/files', { schema: { hide: true }, config: { tokenInUpload: true } }, async (request, reply) => {
      const user = signedInUser(request);
      const tag = await tagOf(user, request.params.id);
      // The page script sends the token as a header (checked already); the plain form as its first part.
      let token: unknown = request.headers['x-csrf-token'];
      try {
        const file = await uploadFromRequest(context, request, reply, actorOfUser(user), tag.id, {
          extraFields: {
            [CSRF_FIELD]: (value) => {
              token ??= value;
            },
          },
          beforeFile: () => {
            if (!formTokenMatches(context, request, token)) throw forbidden('This form was expired or was sent from another site');
          },
        });
        if (wantsJson(request)) return await reply.code(201).send({ file: { id: file.id, name: file.name } });
        return seeOther(reply, `${tagPath(tag, 'files')}?done=uploaded`);
      } catch (error) {
        if (!(error instanceof ApiError) || !UPLOAD_REFUSALS.has(error.code)) throw error;
        const message = sentence(error.message);
        if (wantsJson(request)) return reply.code(error.status).send({ error: message });
        return filesPage(request, reply, user, tag, { uploadError: message }, 400);
      }
    });
  });

  app.get<FileParams>('/tags/:id/files/:fileId/thumbnail', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await tagOf(user, request.params.id);
    return sendThumbnail(context, request, reply, await fileOf(user, tag, request.params.fileId), {});
  });

  app.get<FileParams>('/tags/:id/files/:fileId/download', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await tagOf(user, request.params.id);
    return sendDownload(context, request, reply, await fileOf(user, tag, request.params.fileId));
  });

  const editPage = (request: FastifyRequest, reply: FastifyReply, user: SignedInUser, tag: UserTag, form: FileEditForm, status = 200) =>
    html(reply, status, renderFileEdit({ ...pageContext(context, request), path: '/dashboard/tags', user }, tag, form));

  app.get<FileParams>('/tags/:id/files/:fileId/edit', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await tagOf(user, request.params.id);
    const file = await fileOf(user, tag, request.params.fileId);
    return editPage(request, reply, user, tag, { file, values: { name: file.name, description: file.description ?? '' }, errors: {} });
  });

  app.post<FileParams>('/tags/:id/files/:fileId/edit', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await tagOf(user, request.params.id);
    const file = await fileOf(user, tag, request.params.fileId);
    const values = { name: field(request.body, 'name'), description: field(request.body, 'description') };
    const { errors } = await submitForm({
      fields: EDIT_FIELDS,
      // An emptied description is removed, not kept as an empty text.
      save: () =>
        updateFile(context, actorOfUser(user), {
          id: file.id,
          name: values.name,
          description: values.description.trim() ? values.description : null,
        }),
    });
    if (errors) return editPage(request, reply, user, tag, { file, values, errors }, 400);
    return seeOther(reply, `${tagPath(tag, 'files')}?done=saved`);
  });

  /** Delete: without `confirmed=yes` (no scripts), a confirmation page first. */
  app.post<FileParams>('/tags/:id/files/:fileId/delete', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await tagOf(user, request.params.id);
    const file = await fileOf(user, tag, request.params.fileId);
    const filesAddress = tagPath(tag, 'files');
    if (isConfirmed(request.body)) {
      await deleteFile(context, actorOfUser(user), { id: file.id });
      return seeOther(reply, `${filesAddress}?done=deleted`);
    }
    return askFirst(context, request, reply, user, '/dashboard/tags', {
      title: `Delete “${file.name}”?`,
      text: 'Its address stops working at once and its storage is freed. This cannot be undone.',
      action: `${filesAddress}/${encodeURIComponent(file.id)}/delete`,
      button: 'Delete',
      cancel: filesAddress,
    });
  });
};
