import { Type } from 'typebox';
import { idPattern, TAG_REF_PATTERN } from '../../lib/ids.js';
import { BLOCK_TYPES, CALLOUT_STYLES, MAX_BLOCKS } from './blocks.js';

/** The public contract of the tag endpoints (TypeBox → validation, serialization, OpenAPI). */

export const READ_PERMISSIONS = ['public', 'organization', 'private'] as const;
export const WRITE_PERMISSIONS = ['owner', 'organization'] as const;

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

export const Block = Type.Object(
  { id: Type.String({ description: 'blk_…' }), type: Type.Enum(BLOCK_TYPES) },
  { additionalProperties: true, description: BLOCK_DESCRIPTION },
);

const Permissions = Type.Object({ read: ReadPermission, write: WritePermission });

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
};

const optional = <T extends Record<string, Parameters<typeof Type.Optional>[0]>>(properties: T) =>
  Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>>;
  };

const { title: _title, ...rest } = tagInputProperties;

export const TagCreateBody = Type.Object({ title: tagInputProperties.title, ...optional(rest) }, { additionalProperties: false });

export const TagUpdateBody = Type.Object(optional(tagInputProperties), { additionalProperties: false });

/** Tags one batch request may create. */
export const MAX_BATCH_TAGS = 100;

export const TagBatchBody = Type.Object(
  { tags: Type.Array(TagCreateBody, { minItems: 1, maxItems: MAX_BATCH_TAGS }) },
  { additionalProperties: false },
);

export const Tag = Type.Object({
  id: Type.String({ description: 'tag_…' }),
  short_id: Type.String({ description: '8 characters; also accepted wherever {id} is' }),
  title: Type.String(),
  content: Type.Array(Block),
  folder_id: Type.Union([Type.String(), Type.Null()]),
  permissions: Permissions,
  access_logging: Type.Boolean(),
  owner: Type.Object({ id: Type.String(), email: Type.String() }),
  qr_url: Type.String({ description: 'The QR code through the API (needs a key)' }),
  public_qr_url: Type.Union([Type.String(), Type.Null()], {
    description: 'The QR code anyone may embed, as SVG ({url}/qr.svg; qr.png too); null unless the tag is public',
  }),
  url: Type.String({ description: 'The public page' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const TagListItem = Type.Object({
  id: Type.String(),
  short_id: Type.String(),
  title: Type.String(),
  folder_id: Type.Union([Type.String(), Type.Null()]),
  permissions: Permissions,
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const TagIdParams = Type.Object({ id: TagRef });

export const HEX_COLOR = '^[0-9a-fA-F]{6}$';

/** The pixel sizes a QR code can be made at. */
export const QR_MIN_SIZE = 64;
export const QR_MAX_SIZE = 2048;

export const QrQuery = Type.Object({
  format: Type.Enum(['png', 'svg'], { default: 'png' }),
  size: Type.Integer({ minimum: QR_MIN_SIZE, maximum: QR_MAX_SIZE, default: 512, description: 'Pixels' }),
  color: Type.String({ pattern: HEX_COLOR, default: '000000', description: 'Foreground, 6-digit hex without #' }),
  background: Type.String({ pattern: HEX_COLOR, default: 'ffffff', description: 'Background, 6-digit hex without #' }),
});
