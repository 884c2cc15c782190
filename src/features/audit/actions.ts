/**
 * Every action the audit log records, one naming scheme: `resource.past_tense`. The dashboard's
 * filter offers this list; a feature that records a new action adds it here.
 */
export const AUDIT_ACTIONS = [
  'user.created',
  'user.signed_in',
  'user.sign_in_failed',
  'user.signed_out',
  'user.password_changed',
  'user.password_set',
  'user.password_reset',
  'user.email_verified',
  'user.weekly_report_enabled',
  'user.weekly_report_disabled',
  'user.time_zone_changed',
  'user.plan_changed',
  'user.disabled',
  'user.enabled',
  'user.two_factor_enabled',
  'user.two_factor_disabled',
  'user.passkey_added',
  'user.passkey_removed',
  'user.recovery_code_used',
  'user.recovery_codes_regenerated',
  'instance.signup_changed',
  'instance.two_factor_required',
  'organization.created',
  'organization.renamed',
  'organization.transferred',
  'member.invited',
  'member.invite_revoked',
  'member.added',
  'member.role_changed',
  'member.removed',
  'key.created',
  'key.updated',
  'key.enabled',
  'key.disabled',
  'key.regenerated',
  'key.deleted',
  'folder.created',
  'folder.updated',
  'folder.deleted',
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'file.uploaded',
  'file.updated',
  'file.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.tested',
  'delivery.retried',
  'share.created',
  'share.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}
