/** View recording and analytics: what other features, the jobs and the front doors may use. */
export { analyticsRoutes, MAX_VIEWS_OFFSET } from './analytics.routes.js';
export * from './analytics.service.js';
export { prepareExport, sendExport, type ExportQuery } from './export.js';
export { closeVisitorDays } from './sealing.js';
export { analyticsTagDependent } from './tag-dependent.js';
export { Tracker } from './tracking.js';
export { ViewRecorder } from './view-recorder.js';
export { rollUpViews, vacuumInboxIfDue } from './view-rollup.js';
export { purgeAnalyticsPastHistory } from './retention.js';
