import type { FastifyRequest } from 'fastify';
import { actorOfUser } from '../../features/accounts/index.js';
import { tagReport, viewsOfTags } from '../../features/analytics/index.js';
import { getFolder } from '../../features/folders/index.js';
import { checkTagInput, createTag, deleteTag, listTags, pageStates, type TagSort } from '../../features/tags/index.js';
import { html, isConfirmed, pageContext, queryParam, signedInUser, seeOther, submitForm, type Screen } from '../screen.js';
import { askFirst } from '../components/ask-first.js';
import { userTag } from './user-tag.js';
import { settingsProblem, tagInputOfSettings, tagSettingsChoices, tagSettingsOfForm } from './tag-settings-form.js';
import { renderTagOverview } from './tag-overview.js';
import { tagPath } from './tag-header.js';
import { renderNewTag, renderTags, TAG_ORDERS, type TagOrder, type TagsPage } from './tags.js';
import type { TagSettingsValues } from './tag-settings.js';
import { showsTestData } from '../workspace/workspaces.js';

/** Tags per page of the list: a page stays quick to render whatever the account holds. */
const TAGS_PER_PAGE = 50;
/** A search longer than any title cannot match one. */
const MAX_SEARCH = 255;

const ORDERS: Record<TagOrder, { sort: TagSort; order: 'asc' | 'desc' }> = {
  newest: { sort: 'created', order: 'desc' },
  oldest: { sort: 'created', order: 'asc' },
  title: { sort: 'title', order: 'asc' },
  updated: { sort: 'updated', order: 'desc' },
};

const NOTICES: Record<string, string> = {
  deleted: 'Tag deleted.',
  created: 'Tag created. Its page is live: add its content on the Edit tab.',
};

/** The notice of what was `done`: a test tag's creation says what test data is, not that it is live. */
function noticeOf(request: FastifyRequest): string | undefined {
  const done = queryParam(request, 'done') ?? '';
  const { workspaces } = request.dashboard;
  if (done === 'created' && showsTestData(workspaces)) {
    return `Test tag created: add its content on the Edit tab. Like all test data, it is deleted ${workspaces.testDataDays} days after it was made.`;
  }
  return NOTICES[done];
}

/** A tag made in the dashboard is public unless the form says otherwise. */
const NEW_TAG: Omit<TagSettingsValues, 'folder'> = { title: '', shortId: '', read: 'public', write: 'owner', accessLogging: false };

function pageNumber(request: FastifyRequest): number {
  return Math.max(1, Math.floor(Number(queryParam(request, 'page') ?? 1)) || 1);
}

/**
 * /dashboard/tags: the list (search, folder filter, order, pages), New Tag, and one tag's
 * Overview with Delete. The editor is tag-editor.routes.ts.
 */
export const tagsScreen: Screen = (app, context) => {
  app.get('/tags', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const { folders } = await tagSettingsChoices(context, actor);
    const sort = TAG_ORDERS.find((order) => order.value === queryParam(request, 'sort'))?.value ?? 'newest';
    // A folder that is not one of the user's (deleted since, or typed) filters nothing.
    const folder = folders.find((item) => item.id === queryParam(request, 'folder'))?.id ?? '';
    const q = (queryParam(request, 'q') ?? '').trim().slice(0, MAX_SEARCH);
    const page = pageNumber(request);
    const { total, tags } = await listTags(context, actor, {
      ...ORDERS[sort],
      search: q || undefined,
      folder: folder || undefined,
      limit: TAGS_PER_PAGE,
      offset: (page - 1) * TAGS_PER_PAGE,
    });
    // The page's tags' states and views: one query each, whatever the page holds.
    const [states, { period, views }] = await Promise.all([
      pageStates(context, tags),
      viewsOfTags(context, actor, { tag_ids: tags.map((tag) => tag.id) }),
    ]);
    const view: TagsPage = {
      tags: tags.map((tag) => ({ ...tag, state: states.get(tag.id)!, views: views.get(tag.id)! })),
      viewsPeriod: period,
      folders,
      filter: { q, folder, sort },
      paging: { page, perPage: TAGS_PER_PAGE, total },
      notice: noticeOf(request),
    };
    return html(reply, 200, renderTags({ ...pageContext(context, request), user }, view));
  });

  app.get('/tags/new', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const choices = await tagSettingsChoices(context, actorOfUser(user));
    const folder = choices.folders.find((item) => item.id === queryParam(request, 'folder'))?.id ?? '';
    const page = { values: { ...NEW_TAG, folder }, errors: {}, choices };
    return html(reply, 200, renderNewTag({ ...pageContext(context, request), user }, page));
  });

  app.post('/tags/new', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const choices = await tagSettingsChoices(context, actor);
    const values = tagSettingsOfForm(request.body);
    const settings = tagInputOfSettings(values, choices);
    const { folder_id, ...input } = settings.input;
    const tagInput = { ...input, ...(folder_id ? { folder_id } : {}) };
    const { saved: tag, errors } = await submitForm({
      fields: settingsProblem,
      own: settings.errors,
      check: () => checkTagInput(context, actor, tagInput),
      save: () => createTag(context, actor, tagInput),
    });
    if (errors) return html(reply, 400, renderNewTag({ ...pageContext(context, request), user }, { values, errors, choices }));
    return seeOther(reply, `${tagPath(tag)}?done=created`);
  });

  app.get<{ Params: { id: string } }>('/tags/:id', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const actor = actorOfUser(user);
    const tag = await userTag(context, user, request.params.id);
    // The API's report for its default period (the last 30 days, today included): the same numbers.
    const [report, folder] = await Promise.all([
      tagReport(context, actor, { id: tag.id, granularity: 'day' }),
      tag.folder_id ? getFolder(context, actor, { id: tag.folder_id }) : undefined,
    ]);
    const { summary, period } = report;
    return html(
      reply,
      200,
      renderTagOverview(
        { ...pageContext(context, request), user },
        {
          tag,
          folderName: folder?.name,
          stats: { views: summary.total_views, visitors: summary.unique_views, scans: summary.qr_scans },
          period,
          notice: noticeOf(request),
        },
      ),
    );
  });

  /** Delete: without `confirmed=yes` (no scripts), a confirmation page for a tag the user reaches (404 otherwise). */
  app.post<{ Params: { id: string } }>('/tags/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await userTag(context, user, request.params.id);
    if (isConfirmed(request.body)) {
      await deleteTag(context, actorOfUser(user), { id: tag.id });
      return seeOther(reply, '/dashboard/tags?done=deleted');
    }
    return askFirst(context, request, reply, user, '/dashboard/tags', {
      title: `Delete “${tag.title}”?`,
      text: 'Its page, files and analytics go for good; its short address is never given out again. This cannot be undone.',
      action: `${tagPath(tag)}/delete`,
      button: 'Delete',
      cancel: tagPath(tag),
    });
  });
};
