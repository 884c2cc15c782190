import { createHash } from 'node:crypto';

/** The brand mark, the tab icon of public pages and of the dashboard. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#0b57d0"/>' +
  '<rect x="5" y="5" width="14" height="14" rx="3" fill="#fff"/><rect x="8" y="8" width="8" height="8" rx="2" fill="#0b57d0"/></svg>';

/**
 * Its address names its content, so browsers may keep it for a year (immutable): a changed
 * icon gets a new address.
 */
export const FAVICON_PATH = `/assets/favicon-${createHash('sha256').update(FAVICON_SVG).digest('hex').slice(0, 12)}.svg`;
