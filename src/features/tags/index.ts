/** Tags, their blocks, QR codes: what other features and the front doors may use. */
export { BLOCK_TYPES, CALLOUT_STYLES, MAX_BLOCKS, MAX_BLOCK_CONTENT, type Block, type BlockType } from './blocks.js';
export { qrImage, type QrImage, type QrOptions } from './qr.js';
export { sanitizeUserHtml } from './sanitize.js';
export type { TagRow, TagSort } from './tags.repository.js';
export {
  MAX_BATCH_TAGS,
  normalizeColor,
  QR_MAX_SIZE,
  QR_MIN_SIZE,
  QrQuery,
  READ_PERMISSIONS,
  TagBatchBody,
  WRITE_PERMISSIONS,
} from './tags.schemas.js';
export { tagRoutes } from './tags.routes.js';
export * from './tags.service.js';
