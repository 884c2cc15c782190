/** Folders of tags (an extension of the spec): what other features and the front doors may use. */
export * from './folders.service.js';
