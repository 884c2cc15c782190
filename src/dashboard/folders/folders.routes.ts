import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { createFolder, deleteFolder, getFolder, listFolders, updateFolder, type FolderView } from '../../features/folders/index.js';
import { countTagsByFolder, listTags, updateTag } from '../../features/tags/index.js';
import { ApiError } from '../../errors.js';
import {
  field,
  fields,
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
  type ScreenContext,
} from '../screen.js';
import { askFirst } from '../components/ask-first.js';
import { renderFolder, renderFolders, type FolderPage, type FoldersPage, type MoveResult } from './folders.js';

/** Folders are part of the Tags section: its nav item is the current one on their pages. */
const SECTION = '/dashboard/tags';

/** Tags per page of a folder's list, and candidates shown by the "Move tags here" search. */
const TAGS_PER_PAGE = 50;
const CANDIDATES = 50;
/** Folders are read in pages of this many to draw the whole tree. */
const FOLDER_PAGE = 500;

const NOTICES: Record<string, string> = {
  created: 'Folder created.',
  saved: 'Folder saved.',
  deleted: 'Folder deleted.',
  moved: 'Tag moved.',
};

/** The folder form's fields a service error can name; anything else is not the form's fault. */
const FOLDER_FIELDS = ['name', 'parent_id'];

/** Every folder of the user, for the tree and the parent choices. */
async function allFolders(context: ScreenContext, user: SignedInUser): Promise<FolderView[]> {
  const folders: FolderView[] = [];
  for (let offset = 0; ; offset += FOLDER_PAGE) {
    const page = await listFolders(context, actorOfUser(user), { limit: FOLDER_PAGE, offset });
    folders.push(...page.folders);
    if (folders.length >= page.total || page.folders.length === 0) return folders;
  }
}

const folderPath = (id: string) => `/dashboard/folders/${encodeURIComponent(id)}`;

/**
 * /dashboard/folders: the user's folders as a tree, and a new one; /dashboard/folders/{id}:
 * one folder's tags, moving tags in and out (each a tag update as the user), rename, move
 * under another folder, delete (only an empty one: the service refuses the others).
 */
export const foldersScreen: Screen = (app, context) => {
  const foldersPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: SignedInUser,
    page: Partial<FoldersPage>,
    status = 200,
  ) => {
    const [folders, counts] = await Promise.all([allFolders(context, user), countTagsByFolder(context, actorOfUser(user))]);
    const view = { ...pageContext(context, request), path: SECTION, user };
    return html(reply, status, renderFolders(view, { folders, counts, ...page }));
  };

  const folderPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: SignedInUser,
    folder: FolderView,
    page: Partial<FolderPage>,
    status = 200,
  ) => {
    const actor = actorOfUser(user);
    const pageNumber = Math.max(1, Math.floor(Number(queryParam(request, 'page') ?? 1)) || 1);
    const search = (queryParam(request, 'q') ?? '').trim();
    const [folders, { total, tags }, candidates] = await Promise.all([
      allFolders(context, user),
      listTags(context, actor, {
        folder: folder.id,
        sort: 'title',
        order: 'asc',
        limit: TAGS_PER_PAGE,
        offset: (pageNumber - 1) * TAGS_PER_PAGE,
      }),
      listTags(context, actor, { search, sort: 'title', order: 'asc', limit: CANDIDATES, offset: 0 }),
    ]);
    const view = { ...pageContext(context, request), path: SECTION, user };
    return html(
      reply,
      status,
      renderFolder(view, {
        folder,
        folders,
        tags,
        paging: { page: pageNumber, perPage: TAGS_PER_PAGE, total },
        search,
        candidates: candidates.tags.filter((tag) => tag.folder_id !== folder.id),
        moreCandidates: candidates.total > candidates.tags.length,
        ...page,
      }),
    );
  };

  const findFolder = (user: SignedInUser, id: string) => readOwn(() => getFolder(context, actorOfUser(user), { id }));

  app.get('/folders', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    return foldersPage(request, reply, user, { notice: NOTICES[queryParam(request, 'done') ?? ''] });
  });

  app.post('/folders', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const values = { name: field(request.body, 'name'), parent_id: field(request.body, 'parent_id') };
    const { saved: folder, errors } = await submitForm({
      fields: FOLDER_FIELDS,
      save: () => createFolder(context, actorOfUser(user), { name: values.name, parent_id: values.parent_id || null }),
    });
    if (errors) return foldersPage(request, reply, user, { form: { values, errors } }, 400);
    return seeOther(reply, `${folderPath(folder.id)}?done=created`);
  });

  app.get<{ Params: { id: string } }>('/folders/:id', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const folder = await findFolder(user, request.params.id);
    return folderPage(request, reply, user, folder, { notice: NOTICES[queryParam(request, 'done') ?? ''] });
  });

  // Rename and move under another folder (or to the top level): one form.
  app.post<{ Params: { id: string } }>('/folders/:id', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const folder = await findFolder(user, request.params.id);
    const values = { name: field(request.body, 'name'), parent_id: field(request.body, 'parent_id') };
    const { errors } = await submitForm({
      fields: FOLDER_FIELDS,
      save: () => updateFolder(context, actorOfUser(user), { id: folder.id, name: values.name, parent_id: values.parent_id || null }),
    });
    if (errors) return folderPage(request, reply, user, folder, { form: { values, errors } }, 400);
    return seeOther(reply, `${folderPath(folder.id)}?done=saved`);
  });

  app.post<{ Params: { id: string } }>('/folders/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const folder = await findFolder(user, request.params.id);
    if (!isConfirmed(request.body)) {
      return askFirst(context, request, reply, user, SECTION, {
        title: `Delete “${folder.name}”?`,
        text: 'Only an empty folder can be deleted: move its tags and folders out first. This cannot be undone.',
        action: `${folderPath(folder.id)}/delete`,
        button: 'Delete',
        cancel: folderPath(folder.id),
      });
    }
    try {
      await deleteFolder(context, actorOfUser(user), { id: folder.id });
      return seeOther(reply, '/dashboard/folders?done=deleted');
    } catch (error) {
      // A folder still holding tags or folders: the service says which.
      if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error;
      return folderPage(request, reply, user, folder, { refused: sentence(error.message) }, 400);
    }
  });

  /**
   * "Move tags here": each chosen tag is updated as the user, so every change is validated
   * (the tag is the user's, they may change it); the page lists what moved and what was refused.
   */
  app.post<{ Params: { id: string } }>('/folders/:id/tags', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const folder = await findFolder(user, request.params.id);
    const chosen = fields(request.body, 'tag');
    if (chosen.length === 0) return folderPage(request, reply, user, folder, { moveError: 'Choose at least one tag to move here.' }, 400);
    const results: MoveResult[] = [];
    for (const id of chosen) {
      try {
        const tag = await readOwn(() => updateTag(context, actorOfUser(user), { id, folder_id: folder.id }));
        results.push({ id: tag.id, title: tag.title });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        results.push({ id, error: error.code === 'not_found' ? 'This tag does not exist.' : sentence(error.message) });
      }
    }
    const failed = results.some((result) => result.error);
    return folderPage(request, reply, user, folder, { moved: results }, failed ? 400 : 200);
  });

  // Moving one tag out: to no folder or to another folder.
  app.post<{ Params: { id: string; tagId: string } }>(
    '/folders/:id/tags/:tagId/move',
    { schema: { hide: true } },
    async (request, reply) => {
      const user = signedInUser(request);
      const folder = await findFolder(user, request.params.id);
      const target = field(request.body, 'folder_id');
      try {
        await readOwn(() => updateTag(context, actorOfUser(user), { id: request.params.tagId, folder_id: target || null }));
        return seeOther(reply, `${folderPath(folder.id)}?done=moved`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code === 'not_found' || error.status >= 500) throw error;
        return folderPage(request, reply, user, folder, { moveError: sentence(error.message) }, 400);
      }
    },
  );
};
