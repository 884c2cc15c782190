/**
 * The HTML of public tag pages, without routes: the public door (src/public/) serves it, and the
 * dashboard's editor previews unsaved changes with it.
 */
export {
  beaconScript,
  NOT_FOUND_PAGE,
  renderTagPage,
  splitAtBeacon,
  UNAVAILABLE_PAGE,
  withoutBeacon,
  type PageAddresses,
  type PageTag,
} from './render.js';
export { EXPIRED_PAGE, passwordPage, type PasswordForm } from './gates.js';
/** The tab icon of every page the service serves. */
export { FAVICON_PATH, FAVICON_SVG } from './favicon.js';
