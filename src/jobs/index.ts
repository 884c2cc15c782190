import { analyticsRetentionJob } from './analytics-retention.js';
import { analyticsRollupJob } from './analytics-rollup.js';
import { analyticsSealJob } from './analytics-seal.js';
import { auditRetentionJob } from './audit-retention.js';
import { deliveryRetentionJob } from './delivery-retention.js';
import { filesLeftoversJob } from './files-leftovers.js';
import { idempotencyPurgeJob } from './idempotency-purge.js';
import { mailDeliveryJob } from './mail-delivery.js';
import { mailRetentionJob } from './mail-retention.js';
import type { Job } from './runner.js';
import { sandboxPurgeJob } from './sandbox-purge.js';
import { weeklyReportJob } from './weekly-report.js';

/** Every periodic job the worker runs. Features add theirs here. */
export const jobs: Job[] = [
  sandboxPurgeJob,
  deliveryRetentionJob,
  auditRetentionJob,
  analyticsRetentionJob,
  analyticsSealJob,
  analyticsRollupJob,
  filesLeftoversJob,
  idempotencyPurgeJob,
  mailDeliveryJob,
  mailRetentionJob,
  weeklyReportJob,
];
