/** View and link-click recording and analytics: what other features, the jobs and the front doors may use. */
export { MAX_VIEWS_OFFSET } from './paging.js';
export * from './analytics.service.js';
export { BotViews } from './bot-views.js';
export { ClickRecorder } from './click-recorder.js';
export { linkClickReport } from './clicks.service.js';
export { prepareExport, type ExportQuery, type PreparedExport } from './export.js';
export { closeVisitorDays } from './sealing.js';
export { analyticsTagDependent } from './tag-dependent.js';
export { Tracker, type Visit } from './tracking.js';
export { ViewRecorder } from './view-recorder.js';
export { rollUpViews, vacuumInboxIfDue } from './view-rollup.js';
export { purgeAnalyticsPastHistory } from './retention.js';
