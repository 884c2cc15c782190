/** Files attached to tags: what other features and the front doors may use. */
export {
  fileRoutes,
  multipartUploads,
  publicFileRoutes,
  sendDownload,
  sendThumbnail,
  uploadFromRequest,
  type UploadFormHooks,
} from './files.routes.js';
export { fileTooLarge } from './ingest.js';
export { isTransformable } from './images.js';
export * from './files.service.js';
export { IMAGE_MIME_TYPES, isShownInline } from './file-types.js';
export { filesTagDependent } from './tag-dependent.js';
export { DEAD_TEMP_AFTER_MS, ORPHAN_BLOB_GRACE_MS, sweepCrashLeftovers } from './leftovers.js';
