import { Type } from 'typebox';
import { DOCS_BASE_URL, EVENT_SAMPLES, TagPayload } from '../../features/events/index.js';
import {
  BLOCK_TYPES,
  CALLOUT_STYLES,
  MAX_BATCH_TAGS,
  MAX_BLOCKS,
  MAX_VIEWS_CAP,
  PAGE_PASSWORD_LENGTH,
  QR_MAX_SIZE,
  QR_MIN_SIZE,
  READ_PERMISSIONS,
  TAG_STATUSES,
  THEME_PRESETS,
  WRITE_PERMISSIONS,
} from '../../features/tags/index.js';
import { component } from '../../lib/components.js';
import { idPattern, SHORT_ID_PATTERN, TAG_REF_PATTERN } from '../../lib/ids.js';

/** The public contract of the tag endpoints (TypeBox → validation, serialization, OpenAPI). */

const ReadPermission = Type.Enum(READ_PERMISSIONS, { description: 'Who may view the public page' });
const WritePermission = Type.Enum(WRITE_PERMISSIONS, { description: 'Who may change the tag' });

const BLOCK_DESCRIPTION =
  'A content block. text: content, format {bold, italic}; heading: content, level 1-6; ' +
  `callout: content, style (${CALLOUT_STYLES.join(', ')}; default info); html: content (sanitized); ` +
  'image: file_id (a file of this tag), alt; link: url (http/https), label; divider. ' +
  'Send the id of an existing block on update to keep it. Content of a block: at most 20,000 characters.';

const BlockInput = Type.Object(
  { type: Type.Enum(BLOCK_TYPES), id: Type.Optional(Type.String()) },
  { additionalProperties: true, description: BLOCK_DESCRIPTION },
);

const Permissions = Type.Object({ read: ReadPermission, write: WritePermission });

const nullable = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Union([schema, Type.Null()]);

/** A folder named by a tag (fld_…). */
export const FolderId = Type.String({ pattern: idPattern('fld'), description: 'fld_…' });

/** A tag named in a path: its id or its short id. */
export const TagRef = Type.String({ pattern: TAG_REF_PATTERN, description: 'Tag id (tag_…) or short id' });

const tagInputProperties = {
  title: Type.String({ description: '1-255 characters after trimming' }),
  content: Type.Union([
    Type.Array(BlockInput, { maxItems: MAX_BLOCKS }),
    Type.String({ description: 'HTML, stored as one sanitized html block' }),
  ]),
  folder_id: Type.Union([FolderId, Type.Null()]),
  permissions: Type.Object({ read: Type.Optional(ReadPermission), write: Type.Optional(WritePermission) }, { additionalProperties: false }),
  readPermission: ReadPermission,
  writePermission: WritePermission,
  access_logging: Type.Boolean({ description: 'Keep an access log (GET /analytics/logs); default false' }),
  short_id: Type.String({
    pattern: SHORT_ID_PATTERN,
    description:
      'The page address: 3-64 of A-Z a-z 0-9 - _, unique ignoring case (409 short_id_taken). Default: 8 random characters. ' +
      'After a change, the old address redirects (301) to the new one',
  }),
  status: Type.Enum(TAG_STATUSES, { description: 'published (default) or draft: a draft answers 404 to the public' }),
  publish_at: nullable(Type.String({ description: 'RFC 3339: before then, the page answers 404 to the public' })),
  expires_at: nullable(
    Type.String({ description: 'RFC 3339, after publish_at: from then on the page is expired (410, or 302 to expired_url)' }),
  ),
  max_views: nullable(
    Type.Integer({ minimum: 1, maximum: MAX_VIEWS_CAP, description: 'The page is expired once this many views were counted' }),
  ),
  expired_url: nullable(Type.String({ description: 'https URL an expired page redirects to (302)' })),
  password: nullable(
    Type.String({
      description: `Write-only: ${PAGE_PASSWORD_LENGTH.min}-${PAGE_PASSWORD_LENGTH.max} characters the page asks for; null removes it`,
    }),
  ),
  theme: Type.Object(
    {
      preset: Type.Optional(Type.Enum(THEME_PRESETS)),
      accent_color: Type.Optional(nullable(Type.String({ description: "#rrggbb; null: the preset's own" }))),
    },
    { additionalProperties: false, description: 'The look of the public page; omitted members keep their value' },
  ),
};

const optional = <T extends Record<string, Parameters<typeof Type.Optional>[0]>>(properties: T) =>
  Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>>;
  };

const { title: _title, ...rest } = tagInputProperties;

export const TagCreateBody = Type.Object(
  { title: tagInputProperties.title, ...optional(rest) },
  {
    additionalProperties: false,
    examples: [
      {
        title: 'Conference room B',
        content: [
          { type: 'heading', content: 'Welcome', level: 1 },
          { type: 'text', content: 'Wi-Fi: guest, password on the whiteboard.', format: { bold: false, italic: false } },
        ],
        permissions: { read: 'public', write: 'owner' },
        access_logging: true,
      },
    ],
  },
);

export const TagUpdateBody = Type.Object(optional(tagInputProperties), {
  additionalProperties: false,
  examples: [{ title: 'Conference room B (2nd floor)', permissions: { read: 'organization' } }],
});

export const TagBatchBody = Type.Object(
  { tags: Type.Array(TagCreateBody, { minItems: 1, maxItems: MAX_BATCH_TAGS }) },
  {
    additionalProperties: false,
    examples: [{ tags: [{ title: 'Room A' }, { title: 'Room B', content: '<p>Projector in the cupboard</p>' }] }],
  },
);

/** A tag as the API returns it: the catalogue's payload of tag.created and tag.updated. */
export const Tag = TagPayload;

/** A tag as GET returns it: with an address that previews its page in any state. */
export const TagRead = Type.Object(
  {
    ...TagPayload.properties,
    preview_url: Type.String({
      description:
        'Shows the page in any state (draft, scheduled, expired, behind its password), never counted; valid for at least an hour',
    }),
  },
  {
    ...component('TagWithPreview'),
    examples: [
      {
        ...EVENT_SAMPLES['tag.updated'].tag,
        preview_url: `${DOCS_BASE_URL}/preview/tag_01jd8x3k5q7m2n4p6r8s0t2v4w.1764410400.q9ZqAeb1Yh0R4cXl5m3tKpW8sVJnU2dGfH7oLyT6iBw`,
      },
    ],
  },
);

function listItemOf({ id, short_id, title, folder_id, permissions, status, created_at, updated_at }: TagPayload) {
  return { id, short_id, title, folder_id, permissions, status, created_at, updated_at };
}

export const TagListItem = Type.Object(
  {
    id: Type.String(),
    short_id: Type.String(),
    title: Type.String(),
    folder_id: Type.Union([Type.String(), Type.Null()]),
    permissions: Permissions,
    status: Type.Enum(TAG_STATUSES),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { ...component('TagListItem'), examples: [listItemOf(EVENT_SAMPLES['tag.updated'].tag)] },
);

export const TagIdParams = Type.Object({ id: TagRef });

/** A colour as 6 hex digits, with or without a leading '#' (what colour pickers and CSS write). */
const HEX_COLOR = '^#?[0-9a-fA-F]{6}$';

export const QrQuery = Type.Object({
  format: Type.Enum(['png', 'svg'], { default: 'png' }),
  size: Type.Integer({ minimum: QR_MIN_SIZE, maximum: QR_MAX_SIZE, default: 512, description: 'Pixels' }),
  color: Type.String({ pattern: HEX_COLOR, default: '000000', description: 'Foreground: rrggbb or #rrggbb (# URL-encoded as %23)' }),
  background: Type.String({ pattern: HEX_COLOR, default: 'ffffff', description: 'Background: rrggbb or #rrggbb (# URL-encoded as %23)' }),
});
