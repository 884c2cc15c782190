/** Public tag pages (/t/, /s/) and their beacons. */
export { pageRoutes } from './pages.routes.js';
