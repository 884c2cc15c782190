/** Every plan's limits in one place (spec "Limits", DECISIONS.md "Accounts, plans, keys"). */
import type { Plan } from '../../db/schema.js';

export type { Plan };
export const PLANS = ['free', 'pro', 'enterprise'] as const satisfies readonly Plan[];

const MB = 1024 * 1024;
const GB = 1024 * MB;

export interface PlanLimits {
  /** Free accounts have no API access. */
  apiAccess: boolean;
  requestsPerMinute: number;
  requestsPerHour: number;
  requestsPerDay: number;
  maxFileBytes: number;
  storageBytes: number;
  /** null: unlimited. */
  maxWebhooks: number | null;
  analyticsHistoryDays: number;
  realtimeAnalytics: boolean;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    apiAccess: false,
    requestsPerMinute: 0,
    requestsPerHour: 0,
    requestsPerDay: 0,
    maxFileBytes: 100 * MB,
    storageBytes: 1 * GB,
    maxWebhooks: 0,
    analyticsHistoryDays: 7,
    realtimeAnalytics: false,
  },
  pro: {
    apiAccess: true,
    requestsPerMinute: 60,
    requestsPerHour: 1_000,
    requestsPerDay: 10_000,
    maxFileBytes: 100 * MB,
    storageBytes: 1 * GB,
    maxWebhooks: 5,
    analyticsHistoryDays: 365,
    realtimeAnalytics: false,
  },
  enterprise: {
    apiAccess: true,
    requestsPerMinute: 300,
    requestsPerHour: 5_000,
    requestsPerDay: 100_000,
    maxFileBytes: 500 * MB,
    storageBytes: 10 * GB,
    maxWebhooks: null,
    analyticsHistoryDays: 3 * 365,
    realtimeAnalytics: true,
  },
};

/** Endpoint buckets applied on top of the key's own windows, per minute. */
export const ENDPOINT_LIMITS_PER_MINUTE = { upload: 10, bulk: 5, qr: 30 } as const;

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
