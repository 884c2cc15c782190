/** The weekly report by mail: the user's choice, and the worker's weekly sending. */
export { isWeeklyReportEnabled, sendWeeklyReports, setWeeklyReport } from './weekly-report.service.js';
