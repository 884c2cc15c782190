/** The audit log: what services record changes with, and what the front doors read it with. */
export { AUDIT_ACTIONS, isAuditAction, type AuditAction } from './actions.js';
export { recordAudit, type AuditActor, type AuditEntry, type AuditPerson, type RequestOrigin } from './audit.service.js';
