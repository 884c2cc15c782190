import type { ClickPayload, EventPayloads, EventType, FilePayload, TagPayload, TagSummary, ViewPayload } from './catalogue.js';

export type EventSamples = { [T in EventType]: EventPayloads[T] };

/** The base address the documented samples use in place of the service's PUBLIC_BASE_URL. */
export const DOCS_BASE_URL = 'https://tags.example.com';

/**
 * A realistic payload of every event, for test deliveries and the docs. Ids have the formats
 * of real ids (src/lib/ids.ts) and addresses are on `baseUrl`, the service's PUBLIC_BASE_URL,
 * so a receiver can be built against a test event as against a real one.
 */
export function eventSamples(baseUrl: string): EventSamples {
  const tagId = 'tag_01jd8x3k5q7m2n4p6r8s0t2v4w';
  const tag: TagPayload = {
    id: tagId,
    short_id: 'Xk9mP2qL',
    title: 'Conference room B',
    content: [
      { id: 'blk_01jd8x3k5q7m2n4p6r8s0t2v4x', type: 'heading', content: 'Welcome', level: 1 },
      {
        id: 'blk_01jd8x3k5q7m2n4p6r8s0t2v4y',
        type: 'text',
        content: 'Wi-Fi: guest, password on the whiteboard.',
        format: { bold: false, italic: false },
      },
    ],
    folder_id: 'fld_01jd8wzr1b3d5f7h9k1m3p5r7t',
    permissions: { read: 'public', write: 'owner' },
    access_logging: true,
    owner: { id: 'usr_01jd8wq0a2c4e6g8j0k2n4q6s8', email: 'alice@example.com' },
    qr_url: `${baseUrl}/v1/tags/${tagId}/qr`,
    public_qr_url: `${baseUrl}/t/Xk9mP2qL/qr.svg`,
    url: `${baseUrl}/t/Xk9mP2qL`,
    status: 'published',
    publish_at: null,
    expires_at: '2026-12-31T23:00:00.000Z',
    max_views: null,
    expired_url: null,
    password_protected: false,
    theme: { preset: 'default', accent_color: '#2563eb' },
    created_at: '2026-11-25T09:14:03.512Z',
    updated_at: '2026-11-25T09:20:41.087Z',
  };
  const summary: TagSummary = { id: tag.id, short_id: tag.short_id, title: tag.title };
  const view: ViewPayload = {
    id: 'view_01jd8y7c9e1g3j5k7n9q1s3t5w',
    source: 'qr_scan',
    device: 'mobile',
    browser: 'Safari',
    os: 'iOS',
    country: 'DE',
  };
  const click: ClickPayload = {
    block_id: 'blk_01jd8x3k5q7m2n4p6r8s0t2v4z',
    url: 'https://calendar.example.com/rooms/b',
    label: 'Book the room',
    occurred_at: '2026-11-25T10:02:17.348Z',
  };
  const fileId = 'file_01jd8xb2d4f6h8k0m2p4r6t8v0';
  const file: FilePayload = {
    id: fileId,
    tag_id: tagId,
    name: 'floor-plan.pdf',
    original_name: 'Floor plan (2nd floor).pdf',
    description: 'Evacuation routes',
    mime_type: 'application/pdf',
    size: 482133,
    url: `${baseUrl}/v1/files/${fileId}/download`,
    download_count: 3,
    created_at: '2026-11-25T09:16:27.204Z',
    updated_at: '2026-11-25T09:16:27.204Z',
  };
  return {
    'tag.created': { tag: { ...tag, updated_at: tag.created_at } },
    'tag.updated': { tag },
    'tag.deleted': { tag: summary },
    'tag.viewed': { tag: summary, view },
    'file.uploaded': { tag: summary, file },
    'file.deleted': { tag: summary, file },
    'qr.generated': { tag: summary, qr: { format: 'png', size: 512, color: '000000', background: 'ffffff' } },
    'qr.scanned': { tag: summary, view },
    'link.clicked': { tag: summary, click },
  };
}

/** The samples as the docs show them. */
export const EVENT_SAMPLES: EventSamples = eventSamples(DOCS_BASE_URL);
