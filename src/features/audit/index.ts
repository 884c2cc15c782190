/** The audit log: what services record changes with, and what the front doors read it with. */
export { AUDIT_ACTIONS, isAuditAction, type AuditAction } from './actions.js';
export {
  AUDIT_CSV_HEADER,
  auditLogCsv,
  listAuditLog,
  purgeAuditLog,
  recordAudit,
  withAudit,
  type AuditActor,
  type AuditEntry,
  type AuditEntryView,
  type AuditPerson,
  type AuditQuery,
  type AuditReader,
  type RequestOrigin,
} from './audit.service.js';
