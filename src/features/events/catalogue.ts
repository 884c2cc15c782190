import type { DeviceType, Environment, ReadPermission, ViewSource, WritePermission } from '../../db/schema.js';

/*
 * The event catalogue: each event type and the `data` its body carries (DECISIONS.md, "Webhooks
 * and events"). The payload shapes are declared here, not taken from the features that send
 * them, because those features sit above events; they declare their API views as these types
 * instead, so a field added to a view and not to its payload fails to compile.
 */

/** A content block of a tag, as stored and returned. */
export type BlockPayload =
  | { id: string; type: 'text'; content: string; format: { bold: boolean; italic: boolean } }
  | { id: string; type: 'heading'; content: string; level: number }
  | { id: string; type: 'callout'; content: string; style: 'info' | 'warning' | 'success' | 'error' }
  | { id: string; type: 'html'; content: string }
  | { id: string; type: 'image'; file_id: string; alt: string }
  | { id: string; type: 'link'; url: string; label: string }
  | { id: string; type: 'divider' };

/** The API representation of a tag (tag.created, tag.updated). */
export interface TagPayload {
  id: string;
  short_id: string;
  title: string;
  content: BlockPayload[];
  folder_id: string | null;
  permissions: { read: ReadPermission; write: WritePermission };
  access_logging: boolean;
  owner: { id: string; email: string };
  qr_url: string;
  /** The QR code anyone may embed (`/t/{short_id}/qr.svg`); null unless the tag is public. */
  public_qr_url: string | null;
  url: string;
  created_at: string;
  updated_at: string;
}

/** The short form of a tag the other events carry. */
export interface TagSummary {
  id: string;
  short_id: string;
  title: string;
}

/** One view of a tag's page (tag.viewed, qr.scanned). */
export interface ViewPayload {
  id: string;
  source: ViewSource;
  device: DeviceType;
  browser: string;
  os: string;
  country: string | null;
}

/** The options a QR code was generated with (qr.generated). */
export interface QrPayload {
  format: 'png' | 'svg';
  size: number;
  color: string;
  background: string;
}

/** The API representation of a file (file.uploaded, file.deleted). */
export interface FilePayload {
  id: string;
  tag_id: string;
  name: string;
  original_name: string;
  description: string | null;
  mime_type: string;
  size: number;
  url: string;
  download_count: number;
  created_at: string;
  updated_at: string;
}

export interface EventPayloads {
  'tag.created': { tag: TagPayload };
  'tag.updated': { tag: TagPayload };
  'tag.deleted': { tag: TagSummary };
  'tag.viewed': { tag: TagSummary; view: ViewPayload };
  'file.uploaded': { tag: TagSummary; file: FilePayload };
  'file.deleted': { tag: TagSummary; file: FilePayload };
  'qr.generated': { tag: TagSummary; qr: QrPayload };
  'qr.scanned': { tag: TagSummary; view: ViewPayload };
}

export type EventType = keyof EventPayloads;

/** Every event type once, in the order the docs and the API list them. */
export const EVENT_TYPES = [
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'tag.viewed',
  'file.uploaded',
  'file.deleted',
  'qr.generated',
  'qr.scanned',
] as const satisfies readonly EventType[];

// A type missing from EVENT_TYPES makes this `never` and the assignment fails to compile;
// a duplicate fails below.
type Missing = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const everyTypeListed: [Missing] extends [never] ? true : Missing = true;
type Duplicates<T extends readonly unknown[]> = T extends readonly [infer H, ...infer R]
  ? H extends R[number]
    ? H
    : Duplicates<R>
  : never;
type Repeated = Duplicates<typeof EVENT_TYPES>;
const noTypeTwice: [Repeated] extends [never] ? true : Repeated = true;
void everyTypeListed;
void noTypeTwice;

/** The row an event belongs to: the environment, owner, organization and tag it is filed under. */
export interface EventOwner {
  environment: Environment;
  owner_id: string;
  organization_id: string | null;
}
