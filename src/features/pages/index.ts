/** Public tag pages (/t/, /s/) and their beacons. */
export { pageRoutes } from './pages.routes.js';
/** The page's own rendering, for a preview of unsaved changes (the dashboard's editor). */
export { renderTagPage, withoutBeacon, type PageAddresses, type PageTag } from './render.js';
/** The tab icon of every page the service serves. */
export { FAVICON_PATH } from './favicon.js';
