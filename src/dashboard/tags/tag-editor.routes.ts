import type { FastifyReply, FastifyRequest } from 'fastify';
import escapeHtml from 'escape-html';
import { actorOfUser, type SignedInUser } from '../../features/accounts/index.js';
import { IMAGE_MIME_TYPES, listFiles } from '../../features/files/index.js';
import { isThemePreset, pageTheme, renderTagPage, withoutBeacon, type PageTag, type PageTheme } from '../../features/pages/index.js';
import { checkTagInput, findMovedTag, previewTag, updateTag, type Block } from '../../features/tags/index.js';
import { isShortId } from '../../lib/ids.js';
import { ApiError } from '../../errors.js';
import {
  field,
  html,
  pageContext,
  queryParam,
  signedInUser,
  seeOther,
  sentence,
  submitForm,
  type Screen,
  type ScreenContext,
} from '../screen.js';
import { applyBlockOp, blockErrorKey, blockInput, blocksOfForm, fieldsOfBlock } from './block-form.js';
import { userTag, type UserTag } from './user-tag.js';
import { settingsProblem, tagInputOfSettings, tagSettingsChoices, tagSettingsOfForm } from './tag-settings-form.js';
import { publishingInput, publishingOfForm, publishingOfTag, publishingProblem, themeOfTag } from './tag-publishing-form.js';
import { renderTagEditor, type TagEditorForm } from './tag-editor.js';
import { tagPath } from './tag-header.js';
import type { ThemeValues } from './tag-theme.js';
import { showsTestData } from '../workspace/workspaces.js';

/** Image files an image block offers: more than a tag's page would ever show. */
const MAX_IMAGES_LISTED = 500;

/** The editor posts every block: as much as the API takes in one JSON body. */
const EDITOR_BODY_LIMIT = 1024 * 1024;

/**
 * The preview's own policy: the public page's (no script at all, styles from this origin), a
 * sandbox (an origin of its own: it reaches nothing of the dashboard's), and framed only by the
 * dashboard's own pages.
 */
const PREVIEW_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox";

function preview(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PREVIEW_CSP)
    .header('x-frame-options', 'SAMEORIGIN')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .send(page);
}

/** The public page's rendering, without its view beacon: a preview is not a view. */
function renderPreview(tag: PageTag & { short_id: string; theme: PageTheme }): string {
  return withoutBeacon(renderTagPage(tag, { file: (fileId) => `/t/${tag.short_id}/files/${fileId}` }));
}

/** The error of a form the preview cannot show yet, in the page's own style. */
function previewProblem(message: string): string {
  return renderTagPage({ title: 'Nothing to preview yet', blocks: [] }, { file: () => '' }).replace(
    '</article>',
    `<aside class="callout callout-warning" role="note"><p>${escapeHtml(message)}</p></aside></article>`,
  );
}

/** The notice after a save: a test tag's page is its test page, not a public one. */
const savedNotice = (request: FastifyRequest) =>
  showsTestData(request.dashboard.workspaces)
    ? 'Saved. Its test page shows the change now.'
    : 'Saved. The public page shows the change now.';

/**
 * The notice after a save that changed the address (`moved_from`, the address it left): that
 * the old address still leads to the page. Said only when it does: when the address it names is
 * one this tag left.
 */
async function movedNotice(context: ScreenContext, request: FastifyRequest, tag: UserTag): Promise<string | undefined> {
  const from = queryParam(request, 'moved_from') ?? '';
  if (!isShortId(from) || (await findMovedTag(context, from))?.id !== tag.id) return undefined;
  const oldUrl = `${tag.url.slice(0, -tag.short_id.length)}${from}`;
  return `Its address is now ${tag.url}. The old address, ${oldUrl}, keeps working: it redirects to the new one.`;
}

/** The look the form chose: the tag's own for a preset that is not one, or an accent that is not a colour. */
function themeOfValues(theme: ThemeValues, tag: UserTag): PageTheme {
  const preset = isThemePreset(theme.preset) ? theme.preset : tag.theme.preset;
  return pageTheme(preset, theme.presetAccent ? null : theme.accent.toLowerCase());
}

/** One refusal of the service as the form's message about the tag's settings or blocks; undefined when it is about neither. */
function editorProblem(problem: ApiError): Record<string, string> | undefined {
  const settings = settingsProblem(problem) ?? publishingProblem(problem);
  if (settings) return settings;
  const name = problem.code === 'validation_error' ? problem.details.field : undefined;
  if (!name) return undefined;
  const key = blockErrorKey(name);
  // The message names the field by its API path (content[2].level must be…): the form shows it under the field.
  if (key) return { [key]: sentence(problem.message.slice(name.length).trim()) };
  return name === 'content' ? { content: sentence(problem.message.replace(/^content /, 'The page ')) } : undefined;
}

/**
 * /dashboard/tags/{id}/edit: one form for the settings, how the page is published and looks,
 * and every block. Without scripts, Add, Move and Remove are submit buttons that answer with
 * the form re-rendered (nothing saved); Save saves it all through updateTag, or nothing.
 * /preview renders the form's unsaved title, blocks and theme with the public page's own code,
 * into the editor's frame.
 */
export const tagEditorScreen: Screen = (app, context: ScreenContext) => {
  const editorPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: SignedInUser,
    tag: UserTag,
    form: TagEditorForm,
    status = 200,
  ) => {
    const actor = actorOfUser(user);
    const [choices, { files }] = await Promise.all([
      tagSettingsChoices(context, actor),
      listFiles(context, actor, { tagId: tag.id, limit: MAX_IMAGES_LISTED, offset: 0 }),
    ]);
    const images = files.filter((file) => IMAGE_MIME_TYPES.includes(file.mime_type)).map((file) => ({ id: file.id, name: file.name }));
    const saved = queryParam(request, 'done') === 'saved';
    const notice = saved ? [savedNotice(request), await movedNotice(context, request, tag)].filter(Boolean).join(' ') : undefined;
    return html(reply, status, renderTagEditor({ ...pageContext(context, request), user }, { tag, choices, images, notice, ...form }));
  };

  app.get<{ Params: { id: string } }>('/tags/:id/edit', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await userTag(context, user, request.params.id);
    const values = {
      title: tag.title,
      shortId: tag.short_id,
      read: tag.permissions.read,
      write: tag.permissions.write,
      folder: tag.folder_id ?? '',
      accessLogging: tag.access_logging,
    };
    const form = { values, publishing: publishingOfTag(tag), theme: themeOfTag(tag), blocks: tag.content.map(fieldsOfBlock), errors: {} };
    return editorPage(request, reply, user, tag, form);
  });

  app.post<{ Params: { id: string } }>(
    '/tags/:id/edit',
    { schema: { hide: true }, bodyLimit: EDITOR_BODY_LIMIT },
    async (request, reply) => {
      const user = signedInUser(request);
      const actor = actorOfUser(user);
      const tag = await userTag(context, user, request.params.id);
      const values = tagSettingsOfForm(request.body, tag);
      const page = publishingOfForm(request.body, tag);
      const blocks = blocksOfForm(request.body);
      const op = field(request.body, 'op');
      if (op && op !== 'save') {
        const edited = applyBlockOp(blocks, op) ?? blocks;
        return editorPage(request, reply, user, tag, { values, ...page, blocks: edited, errors: {} });
      }
      const settings = tagInputOfSettings(values, await tagSettingsChoices(context, actor), tag);
      const publishing = publishingInput(page, field(request.body, 'password'), tag);
      const input = { id: tag.id, ...settings.input, ...publishing.input, content: blocks.map(blockInput) };
      const { errors } = await submitForm({
        fields: editorProblem,
        own: { ...settings.errors, ...publishing.errors },
        check: () => checkTagInput(context, actor, input),
        save: () => updateTag(context, actor, input),
      });
      if (errors) return editorPage(request, reply, user, tag, { values, ...page, blocks, errors }, 400);
      // A new address: the page says the old one keeps leading to it.
      const moved = settings.input.short_id ? `&${new URLSearchParams({ moved_from: tag.short_id }).toString()}` : '';
      return seeOther(reply, `${tagPath(tag, 'edit')}?done=saved${moved}`);
    },
  );

  app.get<{ Params: { id: string } }>('/tags/:id/preview', { schema: { hide: true } }, async (request, reply) => {
    const user = signedInUser(request);
    const tag = await userTag(context, user, request.params.id);
    const theme = pageTheme(tag.theme.preset, tag.theme.accent_color);
    return preview(reply, 200, renderPreview({ title: tag.title, blocks: tag.content as Block[], short_id: tag.short_id, theme }));
  });

  app.post<{ Params: { id: string } }>(
    '/tags/:id/preview',
    { schema: { hide: true }, bodyLimit: EDITOR_BODY_LIMIT },
    async (request, reply) => {
      const user = signedInUser(request);
      const tag = await userTag(context, user, request.params.id);
      try {
        const page = await previewTag(context, actorOfUser(user), {
          id: tag.id,
          title: field(request.body, 'title'),
          content: blocksOfForm(request.body).map(blockInput),
        });
        return preview(reply, 200, renderPreview({ ...page, theme: themeOfValues(publishingOfForm(request.body, tag).theme, tag) }));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'validation_error') throw error;
        // content[2].level must be… reads "block 3 level must be…" on the page.
        const message = error.message.replace(/^content\[(\d+)\]\.?/, (_, index: string) => `block ${Number(index) + 1} `);
        return preview(reply, 400, previewProblem(`Fix the form to see the preview. ${sentence(message)}`));
      }
    },
  );
};
