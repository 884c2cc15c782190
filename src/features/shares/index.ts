/** Tags' reports shared at public addresses: what the front doors and createServices may use. */
export {
  checkShareFields,
  createShare,
  deleteShare,
  listShares,
  openShare,
  sharedReport,
  SHARED_PERIODS,
  statsPath,
  type OpenedShare,
  type SharedPeriod,
  type SharedPeriodChoice,
  type ShareInput,
  type ShareView,
} from './shares.service.js';
export { sharesTagDependent } from './tag-dependent.js';
