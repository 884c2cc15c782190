import { purgeAuditLog } from '../features/audit/index.js';
import type { Job } from './runner.js';

/** Entries deleted per statement: short transactions, so the log's writers never wait long. */
const BATCH = 1000;

/** The audit log keeps AUDIT_RETENTION_DAYS (365 by default); older entries are deleted hourly, in batches. */
export const auditRetentionJob: Job = {
  name: 'audit-retention',
  intervalMs: 60 * 60 * 1000,
  async run(ctx) {
    const retentionDays = ctx.config.auditRetentionDays;
    const purged = await purgeAuditLog(ctx, { retentionDays, batch: BATCH });
    if (purged > 0) ctx.log.info({ purged, retention_days: retentionDays }, 'old audit log entries purged');
  },
};
