import type { SignedInUser } from '../../features/accounts/index.js';
import { BLOCK_TYPES, CALLOUT_STYLES, MAX_BLOCK_CONTENT, type BlockType } from '../../features/tags/index.js';
import type { BlockFields } from './block-form.js';
import { newBlockFields } from './block-form.js';
import { Alert, CheckboxField, CsrfField, ErrorSummary, Field, fieldId, SelectField, TextAreaField } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { TagHeader, tagPath } from './tag-header.js';
import type { UserTag } from './user-tag.js';
import { TAG_SETTINGS_ORDER, TagSettingsFields, type TagSettingsChoices, type TagSettingsValues } from './tag-settings.js';
import { PasswordFields, PUBLISHING_ORDER, PublishingFields, type PublishingValues } from './tag-publishing.js';
import { THEME_ORDER, ThemeFields, type ThemeValues } from './tag-theme.js';
import { formatNumber } from '../components/table.js';

export const BLOCK_LABELS: Record<BlockType, string> = {
  text: 'Text',
  heading: 'Heading',
  callout: 'Callout',
  html: 'HTML',
  image: 'Image',
  link: 'Link',
  divider: 'Divider',
};

/** An image file of the tag, which an image block can show. */
export interface TagImage {
  id: string;
  name: string;
}

/** What the edit form holds: as the tag is, or as a form sent it. */
export interface TagEditorForm {
  values: TagSettingsValues;
  publishing: PublishingValues;
  theme: ThemeValues;
  blocks: readonly BlockFields[];
  /** By form field: `title`, `read`…, `blocks[N].<field>`, `blocks[N]` (the block), `content` (the list). */
  errors: Record<string, string>;
}

export interface TagEditorPage extends TagEditorForm {
  tag: UserTag;
  images: readonly TagImage[];
  choices: TagSettingsChoices;
  notice?: string;
}

/** The fields that can have an error, in the page's order: the error summary lists them so. */
function editorOrder(errors: Record<string, string>): string[] {
  const blockIndex = (name: string) => Number(/^blocks\[(\d+)\]/.exec(name)?.[1] ?? -1);
  const blocks = Object.keys(errors)
    .filter((name) => name.startsWith('blocks['))
    .sort((a, b) => blockIndex(a) - blockIndex(b));
  return [...TAG_SETTINGS_ORDER, 'content', ...blocks, ...THEME_ORDER, ...PUBLISHING_ORDER];
}

/**
 * A block's index in its fields' names and ids. Block templates (added by tags.js) carry
 * INDEX_SLOT instead, which the script replaces; the script renumbers after every move.
 */
type BlockIndex = number | typeof INDEX_SLOT;
const INDEX_SLOT = '__i__';

const nameOf = (index: BlockIndex, field: string) => `blocks[${index}][${field}]`;
const idOf = (index: BlockIndex, field: string) => `block-${index}-${field}`;

/** What the error summary links to: a block's field (`blocks[2].level`), the block itself, or a setting. */
function editorFieldId(name: string): string | undefined {
  const block = /^blocks\[(\d+)\](?:\.(\w+))?$/.exec(name);
  if (block) return idOf(Number(block[1]), block[2] ?? 'legend');
  return name === 'content' ? 'blocks-heading' : fieldId(name);
}

interface BlockProps {
  block: BlockFields;
  index: BlockIndex;
  errors: Record<string, string>;
  images: readonly TagImage[];
}

/** The image choices: the tag's image files, and a block's current file even when it is not one of them (as sent). */
function imageOptions(images: readonly TagImage[], current: string) {
  const options = images.map((image) => ({ value: image.id, label: image.name }));
  if (current && !images.some((image) => image.id === current)) options.push({ value: current, label: current });
  const none = images.length > 0 ? 'Choose an image' : 'No images yet: upload one on the Files tab';
  return [{ value: '', label: none }, ...options];
}

function BlockFieldsOf({ block, index, errors, images }: BlockProps) {
  const error = (field: string) => errors[`blocks[${index}].${field}`];
  const content = (label: string, rows: number, hint?: string) => (
    <TextAreaField
      name={nameOf(index, 'content')}
      id={idOf(index, 'content')}
      label={label}
      value={block.content}
      rows={rows}
      hint={hint}
      error={error('content')}
    />
  );
  switch (block.type) {
    case 'text':
      return (
        <>
          {content('Text', 4)}
          <div class="block-flags">
            <CheckboxField name={nameOf(index, 'bold')} id={idOf(index, 'bold')} label="Bold" checked={block.bold} />
            <CheckboxField name={nameOf(index, 'italic')} id={idOf(index, 'italic')} label="Italic" checked={block.italic} />
          </div>
        </>
      );
    case 'heading':
      return (
        <div class="field-row field-row-wide">
          <Field
            name={nameOf(index, 'content')}
            id={idOf(index, 'content')}
            label="Heading"
            autocomplete="off"
            value={block.content}
            required={false}
            error={error('content')}
          />
          <SelectField
            name={nameOf(index, 'level')}
            id={idOf(index, 'level')}
            label="Level"
            value={block.level}
            options={[1, 2, 3, 4, 5, 6].map((level) => ({ value: String(level), label: `Level ${level}` }))}
            error={error('level')}
          />
        </div>
      );
    case 'callout':
      return (
        <>
          {content('Text', 3)}
          <SelectField
            name={nameOf(index, 'style')}
            id={idOf(index, 'style')}
            label="Style"
            value={block.style}
            options={CALLOUT_STYLES.map((style) => ({ value: style, label: style[0]!.toUpperCase() + style.slice(1) }))}
            error={error('style')}
          />
        </>
      );
    case 'html':
      return content(
        'HTML',
        6,
        `Sanitized when saved: scripts, styles and event handlers are removed. At most ${formatNumber(MAX_BLOCK_CONTENT)} characters.`,
      );
    case 'image':
      return (
        <div class="field-row field-row-wide">
          <SelectField
            name={nameOf(index, 'file_id')}
            id={idOf(index, 'file_id')}
            label="Image"
            value={block.file_id}
            options={imageOptions(images, block.file_id)}
            error={error('file_id')}
          />
          <Field
            name={nameOf(index, 'alt')}
            id={idOf(index, 'alt')}
            label="Alternative text"
            autocomplete="off"
            value={block.alt}
            required={false}
            error={error('alt')}
          />
        </div>
      );
    case 'link':
      return (
        <div class="field-row field-row-wide">
          <Field
            name={nameOf(index, 'url')}
            id={idOf(index, 'url')}
            label="Address"
            type="url"
            autocomplete="off"
            value={block.url}
            required={false}
            hint="http(s):// (clicks are counted), tel:, mailto: or sms:"
            error={error('url')}
          />
          <Field
            name={nameOf(index, 'label')}
            id={idOf(index, 'label')}
            label="Label"
            autocomplete="off"
            value={block.label}
            required={false}
            hint="Empty: the address is shown."
            error={error('label')}
          />
        </div>
      );
    default:
      return <p class="muted">A line across the page.</p>;
  }
}

/** One block: its type, its fields, and the buttons that move and remove it (submit buttons without scripts). */
function BlockEditor({ block, index, errors, images }: BlockProps) {
  const label = BLOCK_LABELS[block.type as BlockType] ?? block.type;
  const blockError = errors[`blocks[${index}]`] ?? errors[`blocks[${index}].type`];
  const position = typeof index === 'number' ? index + 1 : '';
  return (
    <li class={blockError ? 'block block-invalid' : 'block'} data-block="">
      <fieldset aria-labelledby={idOf(index, 'legend')}>
        <div class="block-head">
          <span class="block-title" id={idOf(index, 'legend')}>
            <span class="block-number" data-block-number="">
              {position}
            </span>
            {` ${label}`}
          </span>
          <div class="block-tools">
            <button type="submit" name="op" value={`up:${index}`} class="button button-quiet button-icon" data-op="up">
              Move up
            </button>
            <button type="submit" name="op" value={`down:${index}`} class="button button-quiet button-icon" data-op="down">
              Move down
            </button>
            <button type="submit" name="op" value={`remove:${index}`} class="button button-quiet button-danger" data-op="remove">
              Remove
            </button>
          </div>
        </div>
        <input type="hidden" name={nameOf(index, 'type')} value={block.type} />
        <input type="hidden" name={nameOf(index, 'id')} value={block.id} />
        {blockError && <p class="field-error">{blockError}</p>}
        <BlockFieldsOf block={block} index={index} errors={errors} images={images} />
      </fieldset>
    </li>
  );
}

function AddBlock() {
  return (
    <div class="add-block" role="group" aria-labelledby="add-block-label">
      <span id="add-block-label" class="add-block-label">
        Add a block
      </span>
      {BLOCK_TYPES.map((type) => (
        <button key={type} type="submit" name="op" value={`add:${type}`} class="button button-quiet" data-op="add">
          {BLOCK_LABELS[type]}
        </button>
      ))}
    </div>
  );
}

/** The empty block of each type, for tags.js to add without a round trip. */
function BlockTemplates({ images }: { images: readonly TagImage[] }) {
  return (
    <>
      {BLOCK_TYPES.map((type) => (
        <template key={type} data-block-template={type}>
          <BlockEditor block={newBlockFields(type)} index={INDEX_SLOT} errors={{}} images={images} />
        </template>
      ))}
    </>
  );
}

/**
 * /dashboard/tags/{id}/edit: settings and blocks in one form, beside a preview that is the
 * public page's own rendering of the unsaved form (the Preview button posts the form into the
 * frame; tags.js does so as you type).
 */
export function renderTagEditor(context: PageContext & { user: SignedInUser }, page: TagEditorPage): string {
  const { tag, errors } = page;
  const editPath = tagPath(tag, 'edit');
  const previewPath = `${tagPath(tag)}/preview`;
  return renderAppPage(
    context,
    `Edit ${tag.title}`,
    <>
      <TagHeader tag={tag} current="edit" />
      {page.notice && <Alert kind="success">{page.notice}</Alert>}
      <ErrorSummary errors={errors} order={editorOrder(errors)} idOf={editorFieldId} />
      <div class="editor">
        <form method="post" action={editPath} class="editor-form" id="tag-editor" data-editor="">
          <CsrfField token={context.csrf} />
          <div class="editor-bar">
            <span class="muted editor-status" data-editor-status="" role="status"></span>
            <button
              type="submit"
              formaction={previewPath}
              formtarget="tag-preview"
              formnovalidate
              class="button button-quiet"
              data-preview=""
            >
              Preview
            </button>
            <button type="submit" name="op" value="save" class="button button-primary">
              Save
            </button>
          </div>
          <section class="card stack" aria-labelledby="settings-heading">
            <h2 id="settings-heading">Settings</h2>
            <TagSettingsFields values={page.values} errors={errors} choices={page.choices} tagId={tag.id} />
          </section>
          <section class="card" aria-labelledby="blocks-heading">
            <h2 id="blocks-heading">Content</h2>
            {errors.content && <p class="field-error">{errors.content}</p>}
            <p class="muted blocks-empty" data-blocks-empty="" hidden={page.blocks.length > 0}>
              No blocks yet: add the first one below.
            </p>
            <ol class="blocks" data-blocks="">
              {page.blocks.map((block, index) => (
                <BlockEditor key={index} block={block} index={index} errors={errors} images={page.images} />
              ))}
            </ol>
            <AddBlock />
          </section>
          <section class="card stack" aria-labelledby="appearance-heading">
            <h2 id="appearance-heading">Appearance</h2>
            <ThemeFields values={page.theme} errors={errors} />
          </section>
          <section class="card stack" aria-labelledby="publishing-heading">
            <h2 id="publishing-heading">Publishing</h2>
            <PublishingFields values={page.publishing} errors={errors} />
          </section>
          <section class="card stack" aria-labelledby="password-heading">
            <h2 id="password-heading">Password</h2>
            <PasswordFields values={page.publishing} errors={errors} />
          </section>
          <BlockTemplates images={page.images} />
        </form>
        <section class="editor-preview" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          <iframe name="tag-preview" title="Preview of the tag’s page" src={previewPath} class="preview-frame" sandbox=""></iframe>
          <p class="field-hint">The page as it will look once saved, in any state: drafts and scheduled pages too.</p>
        </section>
      </div>
    </>,
    { scripts: ['tags.js'] },
  );
}
