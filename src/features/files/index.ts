/** Files attached to tags: what other features and the front doors may use. */
export type { FileRow } from './files.repository.js';
export { fileTooLarge } from './ingest.js';
export { DEFAULT_QUALITY, isTransformable, MAX_DIMENSION, OUTPUT_FORMATS, type TransformRequest, type Variant } from './images.js';
export * from './files.service.js';
export { ALLOWED_EXTENSIONS, IMAGE_MIME_TYPES, isShownInline } from './file-types.js';
export { contentDisposition, downloadName, MAX_DESCRIPTION, MAX_NAME, requireValidDescription, requireValidName } from './names.js';
export { filesTagDependent } from './tag-dependent.js';
export { DEAD_TEMP_AFTER_MS, ORPHAN_BLOB_GRACE_MS, sweepCrashLeftovers, UNFINISHED_UPLOAD_GRACE_MS } from './leftovers.js';
export { copyStoredFiles, type CopyProgress, type CopySummary } from './copy-store.js';
