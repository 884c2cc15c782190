import { Type, type Static, type TSchema } from 'typebox';
import type { DeviceType, Environment, ReadPermission, ViewSource, WritePermission } from '../../db/schema.js';
import { component, COMPONENT_KEY } from '../../lib/components.js';

/*
 * The event catalogue: each event type and the `data` its body carries (DECISIONS.md, "Webhooks
 * and events"). The payload shapes are declared here, not taken from the features that send
 * them, because those features sit above events; they declare their API views as these types
 * instead, so a field added to a view and not to its payload fails to compile. Each shape is a
 * schema, and its type is derived from it: the API serializes views with these schemas and the
 * OpenAPI document lists them (components and the `webhooks` section), so none can drift.
 */

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const blockId = Type.String({ description: 'blk_…' });

/** One schema per block type, discriminated by `type`. */
const BLOCK_SCHEMAS = {
  text: Type.Object(
    {
      id: blockId,
      type: Type.Literal('text'),
      content: Type.String(),
      format: Type.Object({ bold: Type.Boolean(), italic: Type.Boolean() }),
    },
    component('TextBlock'),
  ),
  heading: Type.Object(
    { id: blockId, type: Type.Literal('heading'), content: Type.String(), level: Type.Integer({ minimum: 1, maximum: 6 }) },
    component('HeadingBlock'),
  ),
  callout: Type.Object(
    { id: blockId, type: Type.Literal('callout'), content: Type.String(), style: Type.Enum(['info', 'warning', 'success', 'error']) },
    component('CalloutBlock'),
  ),
  html: Type.Object(
    { id: blockId, type: Type.Literal('html'), content: Type.String({ description: 'Sanitized HTML' }) },
    component('HtmlBlock'),
  ),
  image: Type.Object(
    { id: blockId, type: Type.Literal('image'), file_id: Type.String({ description: 'A file of this tag (file_…)' }), alt: Type.String() },
    component('ImageBlock'),
  ),
  link: Type.Object(
    {
      id: blockId,
      type: Type.Literal('link'),
      url: Type.String({ description: 'http or https (the page counts its clicks), or tel, mailto or sms (linked directly)' }),
      label: Type.String(),
    },
    component('LinkBlock'),
  ),
  divider: Type.Object({ id: blockId, type: Type.Literal('divider') }, component('DividerBlock')),
};

type BlockSchema = (typeof BLOCK_SCHEMAS)[keyof typeof BLOCK_SCHEMAS];

/** A content block of a tag, as stored and returned: exactly one of the block schemas, by `type`. */
export const BlockPayload = Type.Unsafe<Static<BlockSchema>>({
  oneOf: Object.values(BLOCK_SCHEMAS),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(
      Object.entries(BLOCK_SCHEMAS).map(([type, schema]) => [
        type,
        `#/components/schemas/${(schema as unknown as Record<string, unknown>)[COMPONENT_KEY] as string}`,
      ]),
    ),
  },
  ...component('Block'),
});
export type BlockPayload = Static<typeof BlockPayload>;

const ReadPermissionSchema = Type.Enum(['public', 'organization', 'private'], { description: 'Who may view the public page' });
const WritePermissionSchema = Type.Enum(['owner', 'organization'], { description: 'Who may change the tag' });

/** The API representation of a tag (tag.created, tag.updated). */
export const TagPayload = Type.Object(
  {
    id: Type.String({ description: 'tag_…' }),
    short_id: Type.String({ description: 'The page address: 8 characters issued, or 3-64 chosen; also accepted wherever {id} is' }),
    title: Type.String(),
    content: Type.Array(BlockPayload),
    folder_id: nullable(Type.String({ description: 'fld_…' })),
    permissions: Type.Object({ read: ReadPermissionSchema, write: WritePermissionSchema }),
    access_logging: Type.Boolean(),
    owner: Type.Object({ id: Type.String(), email: Type.String() }),
    qr_url: Type.String({ description: 'The QR code through the API (needs a key)' }),
    public_qr_url: nullable(
      Type.String({ description: 'The QR code anyone may embed, as SVG ({url}/qr.svg; qr.png too); null unless the tag is public' }),
    ),
    url: Type.String({ description: 'The public page' }),
    status: Type.Enum(['published', 'draft'], { description: 'A draft is shown to nobody publicly' }),
    publish_at: nullable(Type.String({ format: 'date-time', description: 'The page is public from then on' })),
    expires_at: nullable(Type.String({ format: 'date-time', description: 'The page is expired from then on' })),
    max_views: nullable(Type.Integer({ minimum: 1, description: 'The page is expired once this many views were counted' })),
    expired_url: nullable(Type.String({ description: 'Where an expired page sends its visitors (else 410)' })),
    password_protected: Type.Boolean({ description: 'The page asks for a password' }),
    theme: Type.Object(
      {
        preset: Type.Enum(['default', 'minimal', 'bold', 'dark']),
        accent_color: nullable(Type.String({ description: "#rrggbb; null: the preset's own" })),
      },
      component('Theme'),
    ),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  component('Tag'),
);
export type TagPayload = Static<typeof TagPayload>;

/** The short form of a tag the other events carry. */
export const TagSummary = Type.Object({ id: Type.String(), short_id: Type.String(), title: Type.String() }, component('TagSummary'));
export type TagSummary = Static<typeof TagSummary>;

/** One view of a tag's page (tag.viewed, qr.scanned). */
export const ViewPayload = Type.Object(
  {
    id: Type.String({ description: 'view_…' }),
    source: Type.Enum(['qr_scan', 'direct', 'referral']),
    device: Type.Enum(['mobile', 'desktop', 'tablet']),
    browser: Type.String(),
    os: Type.String(),
    country: nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
  },
  component('ViewEvent'),
);
export type ViewPayload = Static<typeof ViewPayload>;

/** One counted click of a web link block on a tag's page (link.clicked). */
export const ClickPayload = Type.Object(
  {
    block_id: blockId,
    url: Type.String({ description: 'Where the link sent the visitor' }),
    label: Type.String({ description: "The link's label as the page showed it (empty: the page showed the address)" }),
    occurred_at: Type.String({ format: 'date-time' }),
  },
  component('ClickEvent'),
);
export type ClickPayload = Static<typeof ClickPayload>;

/** The options a QR code was generated with (qr.generated). */
export const QrPayload = Type.Object(
  { format: Type.Enum(['png', 'svg']), size: Type.Integer(), color: Type.String(), background: Type.String() },
  component('QrOptions'),
);
export type QrPayload = Static<typeof QrPayload>;

/** The API representation of a file (file.uploaded, file.deleted). */
export const FilePayload = Type.Object(
  {
    id: Type.String({ description: 'file_…' }),
    tag_id: Type.String({ description: 'The tag the file belongs to' }),
    name: Type.String({ description: 'Display name; also the name a download is saved under' }),
    original_name: Type.String({ description: 'The name the file was uploaded with' }),
    description: nullable(Type.String()),
    mime_type: Type.String({ description: 'The detected type, never the client-declared one' }),
    size: Type.Integer({ description: 'Bytes' }),
    url: Type.String({ description: 'Download address ({PUBLIC_BASE_URL}/v1/files/{id}/download)' }),
    download_count: Type.Integer({ description: 'Completed downloads of the whole file' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  component('File'),
);
export type FilePayload = Static<typeof FilePayload>;

const withTag = { tag: TagSummary };

/** The `data` of each event type, in the order the docs and the API list them. */
export const EVENT_DATA = {
  'tag.created': Type.Object({ tag: TagPayload }),
  'tag.updated': Type.Object({ tag: TagPayload }),
  'tag.deleted': Type.Object(withTag),
  'tag.viewed': Type.Object({ ...withTag, view: ViewPayload }),
  'file.uploaded': Type.Object({ ...withTag, file: FilePayload }),
  'file.deleted': Type.Object({ ...withTag, file: FilePayload }),
  'qr.generated': Type.Object({ ...withTag, qr: QrPayload }),
  'qr.scanned': Type.Object({ ...withTag, view: ViewPayload }),
  'link.clicked': Type.Object({ ...withTag, click: ClickPayload }),
};

export type EventPayloads = { [T in keyof typeof EVENT_DATA]: Static<(typeof EVENT_DATA)[T]> };

export type EventType = keyof EventPayloads;

/** Every event type once, in the order the docs and the API list them. */
export const EVENT_TYPES = Object.keys(EVENT_DATA) as [EventType, ...EventType[]];

// The schemas' enums are the database's: a value added to one and not the other fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const enumsMatch: [
  Same<TagPayload['permissions']['read'], ReadPermission>,
  Same<TagPayload['permissions']['write'], WritePermission>,
  Same<ViewPayload['source'], ViewSource>,
  Same<ViewPayload['device'], DeviceType>,
] = [true, true, true, true];
void enumsMatch;

/** The row an event belongs to: the environment, owner, organization and tag it is filed under. */
export interface EventOwner {
  environment: Environment;
  owner_id: string;
  organization_id: string | null;
}
