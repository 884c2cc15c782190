/** The outbox: every change's events, written in the change's own transaction. */
export * from './catalogue.js';
export * from './outbox.js';
export * from './samples.js';
