/** Tags, their blocks, QR codes: what other features and the front doors may use. */
export { BLOCK_TYPES, CALLOUT_STYLES, isWebLink, MAX_BLOCKS, MAX_BLOCK_CONTENT, type Block, type BlockType } from './blocks.js';
export {
  MAX_BATCH_TAGS,
  MAX_VIEWS_CAP,
  PAGE_PASSWORD_LENGTH,
  READ_PERMISSIONS,
  TAG_STATUSES,
  THEME_PRESETS,
  WRITE_PERMISSIONS,
} from './choices.js';
export { normalizeColor, qrImage, QR_MAX_SIZE, QR_MIN_SIZE, type QrImage, type QrOptions } from './qr.js';
export { checkAddress, type AddressCheck } from './address-check.js';
export { pageStateAt, pageStates, type PageState } from './page-state.js';
export { previewedTagId } from './preview.js';
export * from './publication.js';
export { checkPasswordLength, rfc3339Instant } from './publishing.js';
export { sanitizeUserHtml } from './sanitize.js';
export type { TagRow, TagSort } from './tags.repository.js';
export * from './tags.service.js';
